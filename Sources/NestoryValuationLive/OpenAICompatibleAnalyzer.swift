import Foundation
import NestoryDomain
import NestoryHTTP
import NestoryValuation

/// Photo analysis through an OpenAI-compatible chat completions endpoint: OpenAI itself, or vLLM, Ollama or
/// llama.cpp's server by their base URL (`http://127.0.0.1:11434/v1` for Ollama). One request per item, all its
/// photos as `image_url` data URLs, the strict schema as `response_format`; the answer is checked against the
/// schema here whatever the endpoint claims.
public struct OpenAICompatibleAnalyzer: PhotoAnalyzing, CustomStringConvertible, CustomReflectable {
    public static let openAIBase = URL(string: "https://api.openai.com/v1")!

    public let baseURL: URL
    public let model: String
    /// How errors name the provider ("OpenAI", or the endpoint's host).
    public let providerName: String
    public let maxCompletionTokens: Int
    private let apiKey: String?
    /// Where to connect (the address the endpoint's host was checked at; see `AddressPin`), or nil: as the name resolves.
    let address: String?
    let http: ProviderHTTP

    /// `apiKey`: sent as `Authorization: Bearer`; nil or empty for a local server that takes none. `timeout`:
    /// each try (images take a while); `maxCompletionTokens`: the answer's cap (a cut answer is `.truncated`).
    public init(baseURL: URL = Self.openAIBase, model: String, apiKey: String?, connectingTo address: String? = nil, name: String? = nil,
                timeout: TimeInterval = 90, retry: RetryPolicy = .standard, maxCompletionTokens: Int = 1000) {
        self.baseURL = baseURL
        self.address = address
        self.model = model
        self.apiKey = apiKey?.trimmingCharacters(in: .whitespacesAndNewlines)
        let host = baseURL.host ?? baseURL.absoluteString
        providerName = name ?? (host.hasSuffix("openai.com") ? "OpenAI" : "The photo analysis server at \(host)")
        self.maxCompletionTokens = maxCompletionTokens
        http = ProviderHTTP(provider: providerName, timeout: timeout, retry: retry, secrets: [self.apiKey ?? ""])
    }

    public var description: String { "\(providerName) (model \(model), \(baseURL.absoluteString))" }
    public var customMirror: Mirror {
        Mirror(self, children: ["baseURL": baseURL, "model": model, "providerName": providerName, "apiKey": apiKey == nil ? "none" : "[redacted]"])
    }

    static let instructions = """
        You identify household items for a home inventory kept for insurance. All the photos show one item (its \
        front, back, labels, serial plate or barcode). Read brand, model and barcode from what is printed or engraved; \
        do not guess numbers that are not visible. Judge the condition from what the photos show. Answer in JSON that \
        follows the schema exactly.
        """

    /// The request body: model, the instructions, the photos as base64 JPEG data URLs, the strict schema.
    func requestBody(photos: [Data], hint: String?) -> Data {
        var parts: [JSONValue] = [.object(["type": .string("text"), "text": .string(
            "Identify this item." + (hint.map { "\nThe owner's notes (categories, name, anything known): \(String($0.prefix(2000)))" } ?? ""))])]
        for photo in photos {
            parts.append(.object(["type": .string("image_url"), "image_url": .object([
                "url": .string("data:image/jpeg;base64," + photo.base64EncodedString()), "detail": .string("auto"),
            ])]))
        }
        return ProviderHTTP.encode(.object([
            "model": .string(model),
            "messages": .array([
                .object(["role": .string("system"), "content": .string(Self.instructions)]),
                .object(["role": .string("user"), "content": .array(parts)]),
            ]),
            "response_format": IdentificationSchema.responseFormat,
            "max_completion_tokens": .integer(maxCompletionTokens),
        ]))
    }

    public func identify(photos: [Data], hint: String?) async throws(ProviderError) -> Identification {
        guard !photos.isEmpty else { throw .invalidAnswer("no photos were given to analyse") }
        var headers: [String: String] = [:]
        if let apiKey, !apiKey.isEmpty { headers["Authorization"] = "Bearer \(apiKey)" }
        let url = baseURL.appendingPathComponent("chat/completions")
        return try await http.post(url, connectingTo: address, body: requestBody(photos: photos, hint: hint), headers: headers, judge: judge)
    }

    func judge(_ answer: HTTPAnswer) throws(ProviderError) -> Verdict<Identification> {
        let name = providerName
        switch answer.status {
        case 200..<300:
            return .done(try Self.read(answer.body))
        case 401, 403:
            throw .invalidKey(provider: name)
        case 429:
            let error = try? JSONDecoder().decode(JSONValue.self, from: answer.body)
            let message = http.message(answer.body, fallback: 429)
            if error?["error"]?["code"]?.stringValue == "insufficient_quota" || error?["error"]?["type"]?.stringValue == "insufficient_quota" {
                throw .quotaExceeded(provider: name, message: message)
            }
            return .retry(.unavailable(provider: name, status: 429, message: "rate limited: \(message)"))
        case 408, 409, 500..<600:
            return .retry(.unavailable(provider: name, status: answer.status, message: http.message(answer.body, fallback: answer.status)))
        default:
            throw .unavailable(provider: name, status: answer.status, message: http.message(answer.body, fallback: answer.status))
        }
    }

    /// A chat completion's first choice: a refusal, a cut or filtered answer, or the content checked against the schema.
    static func read(_ body: Data) throws(ProviderError) -> Identification {
        guard let response = try? JSONDecoder().decode(JSONValue.self, from: body), let choice = response["choices"].flatMap({ value -> JSONValue? in
            if case .array(let choices) = value { return choices.first }
            return nil
        }) else {
            throw .invalidAnswer("the endpoint's answer had no choices")
        }
        let message = choice["message"]
        if let refusal = message?["refusal"]?.stringValue, !refusal.trimmingCharacters(in: .whitespaces).isEmpty {
            throw .refused(String(refusal.prefix(500)))
        }
        switch choice["finish_reason"]?.stringValue {
        case "length": throw .truncated
        case "content_filter": throw .refused("the provider's content filter stopped the answer")
        default: break
        }
        guard let content = message?["content"]?.stringValue, !content.isEmpty else { throw .invalidAnswer("the answer was empty") }
        return try IdentificationSchema.validate(unfenced(content))
    }

    /// Some local servers wrap JSON in a Markdown fence even when asked for a schema.
    static func unfenced(_ content: String) -> String {
        var text = content.trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("```"), text.hasSuffix("```"), text.count >= 6 else { return text }
        text = String(text.dropFirst(3).dropLast(3))
        if text.hasPrefix("json") { text = String(text.dropFirst(4)) }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
