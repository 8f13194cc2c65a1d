import Testing
@testable import NestoryReports
