import Foundation
import NestoryDomain
import NestoryStore
import Testing

/// `nestory household`: what an operator sees of the households, and deleting one (only with --yes).
@Suite(.serialized) struct HouseholdCommandTests {
    @Test func anOperatorListsTheHouseholdsAndDeletesOneOnlyWithYes() throws {
        let folder = CLI.Folder()
        for (email, household, role) in [("ann@example.com", "The Smiths", "owner"), ("bob@example.com", "The Smiths", "member"),
                                         ("eve@example.com", "Others", "owner")] {
            let added = try CLI.run(["user", "add", email, "--household", household, "--role", role, "--time-zone", "Europe/Paris",
                                     "--data", folder.path], stdin: "correct horse battery\n")
            #expect(added.status == 0, "\(added.stderr)")
        }
        let list = try CLI.run(["household", "list", "--data", folder.path])
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout.contains("The Smiths · USD · Europe/Paris · 0 items\n    ann@example.com (owner)\n    bob@example.com (member)"))
        #expect(list.stdout.contains("Others · USD · Europe/Paris · 0 items\n    eve@example.com (owner)"))

        let asked = try CLI.run(["household", "delete", "the smiths", "--data", folder.path])
        #expect(asked.status == 0 && asked.stdout.contains("Would delete:") && asked.stdout.contains("run again with --yes"))
        let deleted = try CLI.run(["household", "delete", "The Smiths", "--yes", "--data", folder.path])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(deleted.stdout.contains("Accounts deleted with it: ann@example.com, bob@example.com."))
        let after = try CLI.run(["household", "list", "--data", folder.path]).stdout
        #expect(!after.contains("The Smiths") && after.contains("Others"))
        let again = try CLI.run(["household", "delete", "The Smiths", "--yes", "--data", folder.path])
        #expect(again.status != 0 && again.stderr.contains("There is no household called The Smiths."))
    }
}
