import Foundation
import NestoryDomain
import NestoryHTTP
import NestoryValuation
import Testing
@testable import NestoryValuationLive

@Suite("Market search against a local server speaking Tavily's /search")
struct TavilyContractTests {
    static let key = "tvly-dev-0123456789abcdefghij"

    /// A Tavily answer, with the prose `answer` it can add (holding a number that must never be taken).
    static let results = """
        {"query":"Sony WH-1000XM4 used price","follow_up_questions":null,"answer":"The average used price is about $999.",
         "images":[],"results":[
           {"title":"Sony WH-1000XM4 used – $180","url":"https://market.example.com/a","content":"Sold for $180.00. Shipping $9.99.","score":0.91,"raw_content":null},
           {"title":"Sony WH-1000XM4 pre-owned","url":"https://shop.example.com/b","content":"Pre-owned, good: $172.50","score":0.85,"raw_content":null}
         ],"response_time":1.02}
        """

    func search(_ server: FakeProvider, waits: Waits = Waits()) -> TavilySearch {
        TavilySearch(baseURL: server.base, apiKey: Self.key, retry: waits.policy())
    }

    func expectError(_ expected: (ProviderError) -> Bool, _ call: () async throws(ProviderError) -> [SearchResult]) async {
        do {
            let value = try await call()
            Issue.record("expected an error, got \(value)")
        } catch {
            #expect(expected(error), "got \(error)")
            #expect(!error.description.contains(Self.key))
        }
    }

    static let query = MarketQuery(brand: "Sony", productName: "WH-1000XM4", used: true, country: "gb", maxResults: 50)

    @Test("Success: the documented request, results read, the answer prose ignored")
    func success() async throws {
        let server = try await FakeProvider([.init(status: 200, body: Self.results)])
        defer { server.stop() }
        let found = try await search(server).search(Self.query)
        #expect(found.map(\.url) == ["https://market.example.com/a", "https://shop.example.com/b"])
        #expect(found.allSatisfy { !$0.title.contains("999") && !$0.content.contains("999") })
        let request = try #require(server.requests.first)
        #expect(request.path == "/search" && request.authorization == "Bearer \(Self.key)")
        let body = request.json
        #expect(body["query"] as? String == "Sony WH-1000XM4 used price")
        #expect(body["max_results"] as? Int == 20 && body["search_depth"] as? String == "basic")
        #expect(body["include_answer"] as? Bool == false && body["country"] as? String == "united kingdom" && body["topic"] as? String == "general")
        #expect(body["api_key"] == nil)
        // Through the parser and the estimate: 180 and 172.50, the shipping and the answer's $999 left out.
        let prices = MarketPrices.collect(found, query: Self.query, currency: .usd, fetchedAt: Date())
        #expect(prices.map(\.source.amount.plainAmount) == ["180.00", "172.50"])
    }

    @Test("Countries are sent as Tavily names them; no country, no field")
    func countries() async throws {
        #expect(TavilySearch.countryName("de") == "germany" && TavilySearch.countryName("US") == "united states")
        #expect(TavilySearch.countryName("zz") == nil)
        let server = try await FakeProvider([.init(status: 200, body: Self.results)])
        defer { server.stop() }
        _ = try await TavilySearch(baseURL: server.base, apiKey: Self.key, searchDepth: "advanced")
            .search(MarketQuery(brand: "Miele", productName: "Complete C3", used: false))
        let body = try #require(server.requests.first).json
        #expect(body["country"] == nil && body["search_depth"] as? String == "advanced" && body["query"] as? String == "Miele Complete C3 new price")
        _ = try await TavilySearch(baseURL: server.base, apiKey: Self.key, country: "FR").search(MarketQuery(brand: "Miele", productName: "C3", used: true))
        #expect(server.requests.last?.json["country"] as? String == "france")
    }

    @Test("401: the key is refused and the batch stops")
    func invalidKey() async throws {
        let server = try await FakeProvider([.init(status: 401, body: #"{"detail":{"error":"Unauthorized: missing or invalid API key."}}"#)])
        defer { server.stop() }
        await expectError({ $0 == .invalidKey(provider: "Tavily") && $0.stopsBatch }) { () async throws(ProviderError) in
            try await search(server).search(Self.query)
        }
        #expect(server.requests.count == 1)
    }

    @Test("432 and 433: the plan's limits stop the batch, with Tavily's words", arguments: [
        (432, "This request exceeds your plan's set usage limit. Please upgrade your plan or contact support@tavily.com"),
        (433, "This request exceeds the pay-as-you-go limit. You can increase your limit on the Tavily dashboard."),
    ])
    func planLimits(status: Int, message: String) async throws {
        let server = try await FakeProvider([.init(status: status, body: #"{"detail":{"error":"\#(message)"}}"#)])
        defer { server.stop() }
        await expectError({ $0 == .planLimit(provider: "Tavily", message: message) && $0.stopsBatch }) { () async throws(ProviderError) in
            try await search(server).search(Self.query)
        }
        #expect(server.requests.count == 1)
    }

    @Test("429 with retry-after in seconds, then success")
    func rateLimitThenSuccess() async throws {
        let waits = Waits()
        let server = try await FakeProvider([
            .init(status: 429, body: #"{"detail":{"error":"Rate limit exceeded."}}"#, headers: ["Retry-After": "3"]),
            .init(status: 200, body: Self.results),
        ])
        defer { server.stop() }
        #expect(try await search(server, waits: waits).search(Self.query).count == 2)
        #expect(waits.all == [.seconds(3)] && server.requests.count == 2)
    }

    @Test("A server asking for a longer wait than the cap is not waited for")
    func tooLongAWait() async throws {
        let waits = Waits()
        let server = try await FakeProvider([.init(status: 429, body: "{}", headers: ["retry-after": "3600"])])
        defer { server.stop() }
        await expectError({ if case .unavailable(_, 429, let m) = $0 { return m.contains("3600") } else { return false } }) {
            () async throws(ProviderError) in try await search(server, waits: waits).search(Self.query)
        }
        #expect(waits.all.isEmpty && server.requests.count == 1)
    }
}

@Suite("The retry policy")
struct RetryPolicyTests {
    @Test("retry-after-ms first, then retry-after in seconds or as an HTTP date, else capped full jitter")
    func delays() {
        let now = Date(timeIntervalSince1970: 1_764_000_000)
        let policy = RetryPolicy(maxAttempts: 6, baseDelay: .seconds(1), maxDelay: .seconds(30), random: { 0.999 }, now: { now })
        #expect(policy.delay(afterAttempt: 1, headers: ["retry-after-ms": "250", "retry-after": "9"]) == .milliseconds(250))
        #expect(policy.delay(afterAttempt: 1, headers: ["retry-after": "7"]) == .seconds(7))
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        #expect(policy.delay(afterAttempt: 1, headers: ["retry-after": formatter.string(from: now.addingTimeInterval(12))]) == .seconds(12))
        #expect(policy.delay(afterAttempt: 1, headers: ["retry-after": "31"]) == nil)
        // Backoff ceilings 1, 2, 4, 8, 16, then the 30 s cap; the wait is random × ceiling.
        let ceilings = (1...7).map { policy.delay(afterAttempt: $0, headers: [:])!.components.seconds }
        #expect(ceilings == [0, 1, 3, 7, 15, 29, 29])
        let zero = RetryPolicy(random: { 0 })
        #expect(zero.delay(afterAttempt: 3, headers: [:]) == .zero)
    }
}
