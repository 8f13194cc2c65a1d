import Testing
@testable import NestoryAuth

@Suite struct PasswordHasherTests {
    let hasher = BcryptPasswordHasher(cost: 4)  // the lowest cost keeps tests fast; the scheme is the same

    @Test func verifiesTheRightPasswordOnly() throws {
        let hash = try hasher.hash("correct horse battery staple")
        #expect(hash.hasPrefix("bcrypt-sha256$$2"))
        #expect(hasher.verify("correct horse battery staple", against: hash))
        #expect(!hasher.verify("correct horse battery stapl", against: hash))
        #expect(!hasher.verify("", against: hash))
        #expect(try hasher.hash("same") != (try hasher.hash("same")))  // salted
    }

    @Test func longPasswordsAreNotTruncatedAt72Bytes() throws {
        let prefix = String(repeating: "p", count: 100)
        let hash = try hasher.hash(prefix + "A")
        #expect(hasher.verify(prefix + "A", against: hash))
        #expect(!hasher.verify(prefix + "B", against: hash))  // plain bcrypt would accept this
    }

    @Test func unicodeIsNormalised() throws {
        let composed = "caf\u{E9} au lait 2024"
        let decomposed = "cafe\u{301} au lait 2024"
        #expect(hasher.verify(decomposed, against: try hasher.hash(composed)))
    }

    @Test func unknownSchemesAreRejected() {
        #expect(!hasher.verify("anything", against: "plain$anything"))
        #expect(!hasher.verify("anything", against: ""))
    }

    @Test func sessionTokensAreStoredAsSHA256Hex() {
        #expect(SessionToken.hash("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SessionToken.hash("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        let token = SessionToken.generate()
        #expect(SessionToken.hash(token).count == 64 && SessionToken.hash(token) != SessionToken.hash(token + "x"))
    }
}
