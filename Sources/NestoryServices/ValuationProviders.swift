import Foundation
import NestoryDomain
import NestoryHTTP
import NestoryStore
import NestoryStoreInterfaces
import NestoryValuation

/// Makes the providers of a household's settings: the live clients in the bootstrap, a test's local ones in tests.
public protocol ValuationProviderMaking: Sendable {
    /// `address`: where to connect (the address a household's own endpoint was checked at), or nil: as the name resolves.
    func analyzer(baseURL: URL, model: String, apiKey: String, connectingTo address: String?) -> any PhotoAnalyzing
    func searcher(apiKey: String, country: String?) -> any MarketSearching
}

/// For tests that configure no provider: any use is a loud failure, never a silent offline answer.
public struct UnavailableValuationProviders: ValuationProviderMaking {
    public init() {}

    struct Refusing: PhotoAnalyzing, MarketSearching {
        func identify(photos: [Data], hint: String?) async throws(ProviderError) -> Identification {
            throw .unreachable(provider: "test", message: "no valuation provider was given to Services (a test double was expected)")
        }
        func search(_ query: MarketQuery) async throws(ProviderError) -> [SearchResult] {
            throw .unreachable(provider: "test", message: "no valuation provider was given to Services (a test double was expected)")
        }
    }

    public func analyzer(baseURL: URL, model: String, apiKey: String, connectingTo address: String?) -> any PhotoAnalyzing { Refusing() }
    public func searcher(apiKey: String, country: String?) -> any MarketSearching { Refusing() }
}

/// Providers the server's operator set for every household (the settings file or the environment), used by a
/// household that has none of its own.
public struct ValuationDefaults: Sendable {
    public var analysisBaseURL: String?
    public var analysisModel: String?
    public var analysisKey: String?
    public var searchKey: String?

    public init(analysisBaseURL: String? = nil, analysisModel: String? = nil, analysisKey: String? = nil, searchKey: String? = nil) {
        self.analysisBaseURL = analysisBaseURL
        self.analysisModel = analysisModel
        self.analysisKey = analysisKey
        self.searchKey = searchKey
    }
}

/// What Settings → Valuation shows: never a key, only whether one is set and its last four characters.
public struct ValuationProviderSettings: Hashable, Sendable {
    public static let defaultBaseURL = "https://api.openai.com/v1"
    public static let defaultModel = "gpt-4o-mini"

    public var analysisBaseURL: String
    public var analysisModel: String
    public var analysisKeyHint: String?
    public var searchKeyHint: String?
    public var searchCountry: String?
    /// `CODE RATE` lines, as the owner set them.
    public var exchangeRates: String
    /// The operator's providers serve this household (it has no key of its own).
    public var operatorAnalysis = false
    public var operatorSearch = false

    public var analysisConfigured: Bool { analysisKeyHint != nil || operatorAnalysis }
    public var searchConfigured: Bool { searchKeyHint != nil || operatorSearch }
}

/// The owner's provider form: an empty key keeps the one set; `remove…` forgets it.
public struct ValuationProviderForm: Sendable {
    public var analysisBaseURL: String
    public var analysisModel: String
    public var analysisKey: String
    public var removeAnalysisKey: Bool
    public var searchKey: String
    public var removeSearchKey: Bool
    public var searchCountry: String
    public var exchangeRates: String

    public init(analysisBaseURL: String = "", analysisModel: String = "", analysisKey: String = "", removeAnalysisKey: Bool = false,
                searchKey: String = "", removeSearchKey: Bool = false, searchCountry: String = "", exchangeRates: String = "") {
        self.exchangeRates = exchangeRates
        self.analysisBaseURL = analysisBaseURL
        self.analysisModel = analysisModel
        self.analysisKey = analysisKey
        self.removeAnalysisKey = removeAnalysisKey
        self.searchKey = searchKey
        self.removeSearchKey = removeSearchKey
        self.searchCountry = searchCountry
    }
}

extension ValuationService {

    public func providerSettings(_ household: HouseholdID) async throws -> ValuationProviderSettings {
        let stored = try await store.valuationSettings(household)
        var settings = ValuationProviderSettings(analysisBaseURL: stored.analysisBaseURL ?? ValuationProviderSettings.defaultBaseURL,
                                                 analysisModel: stored.analysisModel ?? ValuationProviderSettings.defaultModel,
                                                 analysisKeyHint: stored.analysisKey == nil ? nil : stored.analysisKeyHint,
                                                 searchKeyHint: stored.searchKey == nil ? nil : stored.searchKeyHint, searchCountry: stored.searchCountry,
                                                 exchangeRates: stored.exchangeRates ?? "")
        settings.operatorAnalysis = stored.analysisKey == nil && defaults.analysisKey != nil
        settings.operatorSearch = stored.searchKey == nil && defaults.searchKey != nil
        return settings
    }

    /// The owner sets the providers; keys are sealed before they reach the database and never come back out to a
    /// browser. A base URL must be http(s), at a public address unless the operator allows private ones (a local
    /// server such as Ollama or vLLM): a household cannot send the server into its own network.
    public func saveProviders(_ household: HouseholdID, by role: MemberRole, _ form: ValuationProviderForm) async throws {
        guard role == .owner else { throw DomainError.forbidden("Only the household’s owner can set the valuation providers.") }
        var errors = FieldErrors()
        let base = form.analysisBaseURL.trimmingCharacters(in: .whitespaces)
        let model = form.analysisModel.trimmingCharacters(in: .whitespaces)
        let country = form.searchCountry.trimmingCharacters(in: .whitespaces).uppercased()
        if !base.isEmpty {
            let url = URL(string: base)
            if url?.host == nil || !["http", "https"].contains(url?.scheme?.lowercased() ?? "") || base.count > 500 {
                errors.append(FieldError(field: "analysisBaseURL", message: "Enter the endpoint’s base address, e.g. https://api.openai.com/v1 or http://localhost:11434/v1."))
            } else if let host = url?.host, case .failure(let refusal) = await checkEndpoint(host) {
                errors.append(FieldError(field: "analysisBaseURL", message: refusal.message))
            }
        }
        if model.count > 200 || model.contains(where: { $0.isNewline }) { errors.append(FieldError(field: "analysisModel", message: "Enter the model’s name, e.g. gpt-4o-mini.")) }
        for (field, key) in [("analysisKey", form.analysisKey), ("searchKey", form.searchKey)] where key.count > 500 || key.contains(where: { $0.isWhitespace }) {
            errors.append(FieldError(field: field, message: "Paste the key alone, without spaces."))
        }
        if !country.isEmpty, country.count != 2 || !country.allSatisfy({ $0.isASCII && $0.isLetter }) {
            errors.append(FieldError(field: "searchCountry", message: "Enter a two-letter country code (e.g. US, DE), or leave it empty for anywhere."))
        }
        let householdCurrency = try await accounts.household(household).currency
        let rates = errors.collect { try ExchangeRates.parse(form.exchangeRates, base: householdCurrency) }
        try errors.throwIfAny()
        let box = try secrets.box()
        var stored = try await store.valuationSettings(household)
        stored.analysisBaseURL = base.isEmpty ? nil : base
        stored.analysisModel = model.isEmpty ? nil : model
        stored.searchCountry = country.isEmpty ? nil : country
        stored.exchangeRates = rates.flatMap { $0.perUnit.isEmpty ? nil : $0.text }
        func apply(_ key: String, remove: Bool, field: String, sealed: inout String?, hint: inout String?) throws {
            if remove { sealed = nil; hint = nil }
            if !key.isEmpty {
                sealed = try box.seal(key, context: "\(household)/\(field)")
                hint = String(key.suffix(4))
            }
        }
        try apply(form.analysisKey, remove: form.removeAnalysisKey, field: "analysis", sealed: &stored.analysisKey, hint: &stored.analysisKeyHint)
        try apply(form.searchKey, remove: form.removeSearchKey, field: "search", sealed: &stored.searchKey, hint: &stored.searchKeyHint)
        try await store.saveValuationSettings(household, stored, now: now())
    }

    /// The owner's exchange rates (none set: other currencies' prices are left out).
    public func exchangeRates(_ household: HouseholdID) async throws -> ExchangeRates {
        let base = try await accounts.household(household).currency
        let text = try await store.valuationSettings(household).exchangeRates ?? ""
        return (try? ExchangeRates.parse(text, base: base)) ?? ExchangeRates(base: base, perUnit: [:])
    }

    /// The household's configured providers (nil where no key is set), keys opened only here, for the calls.
    public func configuredProviders(_ household: HouseholdID) async throws -> (analyzer: (any PhotoAnalyzing)?, searcher: (any MarketSearching)?) {
        let stored = try await store.valuationSettings(household)
        let box = try secrets.box()
        return (try await analyzer(household, stored, box), try searcher(household, stored, box))
    }

    /// The household's market search alone (a recalculation asks no analyser, so its endpoint is not looked up).
    public func configuredSearcher(_ household: HouseholdID) async throws -> (any MarketSearching)? {
        try searcher(household, try await store.valuationSettings(household), try secrets.box())
    }

    private func analyzer(_ household: HouseholdID, _ stored: StoredValuationSettings, _ box: SecretBox) async throws -> (any PhotoAnalyzing)? {
        if let sealed = stored.analysisKey {
            let key = try box.open(sealed, context: "\(household)/analysis")
            let base = URL(string: stored.analysisBaseURL ?? ValuationProviderSettings.defaultBaseURL)!
            // The household's own endpoint is checked again before each use (its name may point elsewhere now, or it was
            // saved before the rule, or restored from another server's backup), and its calls go to the address it was
            // checked at, so the name cannot be pointed inside meanwhile.
            let check: Result<String?, EndpointRefusal> = stored.analysisBaseURL == nil ? .success(nil) : await checkEndpoint(base.host ?? "")
            switch check {
            case .failure(let refusal):
                return RefusedEndpoint(message: refusal.message)
            case .success(let address):
                return providers.analyzer(baseURL: base, model: stored.analysisModel ?? ValuationProviderSettings.defaultModel, apiKey: key,
                                          connectingTo: address)
            }
        }
        guard let key = defaults.analysisKey, let base = URL(string: defaults.analysisBaseURL ?? ValuationProviderSettings.defaultBaseURL) else { return nil }
        return providers.analyzer(baseURL: base, model: defaults.analysisModel ?? ValuationProviderSettings.defaultModel, apiKey: key, connectingTo: nil)
    }

    private func searcher(_ household: HouseholdID, _ stored: StoredValuationSettings, _ box: SecretBox) throws -> (any MarketSearching)? {
        if let sealed = stored.searchKey {
            return providers.searcher(apiKey: try box.open(sealed, context: "\(household)/search"), country: stored.searchCountry)
        }
        return defaults.searchKey.map { providers.searcher(apiKey: $0, country: stored.searchCountry) }
    }

    /// Whether a household's own endpoint at `host` may be used: the address to connect to (nil when private ones are
    /// allowed: as the name resolves), or why not. The name is resolved off the caller's thread.
    func checkEndpoint(_ host: String) async -> Result<String?, EndpointRefusal> {
        let endpoints = endpoints
        do {
            let addresses = try await blocking.run { () throws -> [String] in try endpoints.checkHost(host) }
            return .success(PublicAddressGuard.preferred(addresses))
        } catch let error as PublicAddressError {
            return .failure(EndpointRefusal(message: error.message))
        } catch {
            return .failure(EndpointRefusal(message: "\(host) could not be checked: \(error)"))
        }
    }
}

/// Why a household's own endpoint is not used.
struct EndpointRefusal: Error {
    let message: String
}

/// A household's endpoint the address rule refuses: each use fails with the reason, as a provider's refusal would.
struct RefusedEndpoint: PhotoAnalyzing {
    let message: String
    func identify(photos: [Data], hint: String?) async throws(ProviderError) -> Identification {
        throw .endpointNotAllowed(message)
    }
}
