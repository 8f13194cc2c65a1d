print("bench-reports")
