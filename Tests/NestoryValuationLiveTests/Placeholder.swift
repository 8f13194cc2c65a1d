import Hummingbird
import Testing
@testable import NestoryValuationLive
