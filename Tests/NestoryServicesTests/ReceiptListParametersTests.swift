import NestoryDomain
import NestoryServices
import NestoryStoreInterfaces
import Testing

/// The receipts list's text parameters, read by one rule for the API, the page and MCP.
struct ReceiptListParametersTests {
    @Test func defaultsAndChoices() throws {
        #expect(try ReceiptListParameters.parse([:]) == ReceiptListParameters(limit: 40))
        #expect(try ReceiptListParameters.parse(["limit": "", "filter": "", "after": ""]) == ReceiptListParameters(limit: 40))
        let chosen = try ReceiptListParameters.parse(["limit": "200", "filter": "unlinked", "after": "1790000000000.x"])
        #expect(chosen == ReceiptListParameters(limit: 200, after: PageCursor(rawValue: "1790000000000.x"), unlinkedOnly: true))
        #expect(try ReceiptListParameters.parse(["filter": "all"]).unlinkedOnly == false)
    }

    @Test func everyWrongValueIsNamedAtOnce() {
        #expect(throws: DomainError.validation([FieldError(field: "limit", message: "limit is a whole number from 1 to 200."),
                                                FieldError(field: "filter", message: "filter is all or unlinked.")])) {
            try ReceiptListParameters.parse(["limit": "0", "filter": "linked"])
        }
        for limit in ["201", "-1", "many", "1.5"] {
            #expect(throws: DomainError.self) { try ReceiptListParameters.parse(["limit": limit]) }
        }
    }
}
