import Foundation
import Testing
@testable import NestoryObjectStorage

@Suite("AWS Signature V4")
struct SigV4Tests {
    /// AWS's published example "GET Object" (Amazon S3 API reference, "Signature Calculations for the Authorization
    /// Header: Transferring Payload in a Single Chunk"): the first ten bytes of examplebucket/test.txt, signed on
    /// 24 May 2013 with the documentation's example key. Its Authorization header is printed in the documentation.
    @Test("the documented GET Object example gets the documented Authorization header")
    func documentedGetObject() throws {
        let signer = SigV4Signer(accessKey: "AKIAIOSFODNN7EXAMPLE", secretKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", region: "us-east-1")
        let date = try #require(ISO8601DateFormatter().date(from: "2013-05-24T00:00:00Z"))
        let headers = signer.sign(method: "GET", url: URL(string: "https://examplebucket.s3.amazonaws.com/test.txt")!,
                                  headers: ["Range": "bytes=0-9"], payloadHash: SigV4Signer.emptyPayloadHash, date: date)
        #expect(headers["Authorization"] == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
            + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
            + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
        #expect(headers["x-amz-date"] == "20130524T000000Z")
        #expect(headers["x-amz-content-sha256"] == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test("a wrong secret or another day gives another signature; the secret is in no header")
    func secretMatters() throws {
        let date = try #require(ISO8601DateFormatter().date(from: "2013-05-24T00:00:00Z"))
        let url = URL(string: "https://examplebucket.s3.amazonaws.com/test.txt")!
        let right = SigV4Signer(accessKey: "AKIAIOSFODNN7EXAMPLE", secretKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", region: "us-east-1")
        let wrong = SigV4Signer(accessKey: "AKIAIOSFODNN7EXAMPLE", secretKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEZ", region: "us-east-1")
        let a = right.sign(method: "GET", url: url, payloadHash: SigV4Signer.emptyPayloadHash, date: date)
        let b = wrong.sign(method: "GET", url: url, payloadHash: SigV4Signer.emptyPayloadHash, date: date)
        let c = right.sign(method: "GET", url: url, payloadHash: SigV4Signer.emptyPayloadHash, date: date.addingTimeInterval(86_400))
        #expect(a["Authorization"] != b["Authorization"])
        #expect(a["Authorization"] != c["Authorization"])
        #expect(!a.values.joined().contains("wJalrXUtnFEMI"))
    }

    @Test("keys and query values are encoded once, query names sorted; a port is part of the signed host")
    func canonicalForms() {
        let url = URL(string: "http://127.0.0.1:9000/bucket/a%20b/c?prefix=blobs%2F&list-type=2")!
        #expect(SigV4Signer.canonicalURI(url) == "/bucket/a%20b/c")
        #expect(SigV4Signer.canonicalQuery(url) == "list-type=2&prefix=blobs%2F")
        #expect(SigV4Signer.hostHeader(url) == "127.0.0.1:9000")
        let location = S3Location(bucket: "photos", prefix: "blobs/", endpoint: URL(string: "http://127.0.0.1:9000")!, pathStyle: true,
                                  accessKey: "k", secretKey: "s")
        #expect(location.url(key: "blobs/abc").absoluteString == "http://127.0.0.1:9000/photos/blobs/abc")
        let hosted = S3Location(bucket: "photos", region: "eu-west-1", accessKey: "k", secretKey: "s")
        #expect(hosted.url(key: "blobs/abc").absoluteString == "https://photos.s3.eu-west-1.amazonaws.com/blobs/abc")
        #expect(S3Location.parse("s3://photos")! == ("photos", "blobs/"))
        #expect(S3Location.parse("s3://photos/nestory/files")! == ("photos", "nestory/files/"))
        #expect(S3Location.parse("s3://Bad_Bucket") == nil)
        #expect(S3Location.parse("/var/data") == nil)
    }
}
