import NestoryCLI

@main
struct Entry {
    static func main() async {
        await NestoryCommand.main()
    }
}
