import Foundation
import Hummingbird
import NestoryDomain
import NestoryStore

/// `GET /health`: is the server up and can it read its database?
struct HealthController {
    let database: AppDatabase

    struct Health: ResponseEncodable {
        let status: String
        let version: String
        let schema: String?
    }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("health") { _, _ -> Health in
            let applied = try database.appliedMigrations()
            return Health(status: "ok", version: NestoryVersion.current, schema: applied.last)
        }
    }
}
