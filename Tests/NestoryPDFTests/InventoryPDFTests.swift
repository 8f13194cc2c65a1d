import Testing
@testable import NestoryPDF
