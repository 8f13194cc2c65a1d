import Foundation
import NestoryServices
import NestoryValuation
import NestoryValuationLive

/// The live valuation providers, picked in the bootstrap: an OpenAI-compatible chat-completions endpoint for photo
/// analysis and Tavily's search API for market prices, over their documented wire formats.
struct LiveValuationProviders: ValuationProviderMaking {
    let searchURL: URL

    func analyzer(baseURL: URL, model: String, apiKey: String, connectingTo address: String?) -> any PhotoAnalyzing {
        OpenAICompatibleAnalyzer(baseURL: baseURL, model: model, apiKey: apiKey, connectingTo: address)
    }

    func searcher(apiKey: String, country: String?) -> any MarketSearching {
        TavilySearch(baseURL: searchURL, apiKey: apiKey, country: country)
    }
}
