import Foundation
import Testing
@testable import MixServer

@Suite struct HostAllowListTests {
    let policy = try! HostAllowList(allowing: ["hooks.example.com", "Example.ORG:8443", "127.0.0.1:9000", "[::1]:9001"])

    @Test(arguments: [
        "https://hooks.example.com/render",
        "http://hooks.example.com",
        "HTTPS://HOOKS.Example.Com/x?y=1#z",
        "https://example.org:8443/a",
        "http://127.0.0.1:9000/hook",
        "http://[::1]:9001/hook",
    ])
    func allows(url: String) {
        #expect((try? policy.check(url).get()) != nil)
    }

    @Test(arguments: [
        ("ftp://hooks.example.com/x", "webhook URL 'ftp://hooks.example.com/x' must be http or https"),
        ("file:///etc/passwd", "webhook URL 'file:///etc/passwd' must be http or https"),
        ("hooks.example.com/x", "webhook URL 'hooks.example.com/x' must be http or https"),
        ("https://user:pw@hooks.example.com/x", "webhook URL must not carry a user name or password"),
        ("https://hooks.example.com@evil.example/x", "webhook URL must not carry a user name or password"),
        ("https:///x", "webhook URL 'https:///x' has no usable host and port"),
        ("https://hooks.example.com:8443/x", "webhook host 'hooks.example.com:8443' is not one the server allows"),
        ("https://hooks.example.com:443/x", "webhook host 'hooks.example.com:443' is not one the server allows"),
        ("https://example.org/x", "webhook host 'example.org' is not one the server allows"),
        ("https://evil.hooks.example.com/x", "webhook host 'evil.hooks.example.com' is not one the server allows"),
        ("https://hooks.example.com./x", "webhook host 'hooks.example.com.' is not one the server allows"),
        ("http://127.0.0.1/x", "webhook host '127.0.0.1' is not one the server allows"),
        ("http://169.254.169.254/latest/meta-data", "webhook host '169.254.169.254' is not one the server allows"),
        ("https://hooks%2Eexample.com/x", "webhook URL 'https://hooks%2Eexample.com/x' has no usable host and port"),
        ("not a url at all", "webhook URL 'not a url at all' must be http or https"),
        ("http://[::1/x", "webhook URL 'http://[::1/x' is not a URL"),
        ("", "webhook URL '' must be http or https"),
    ])
    func refuses(url: String, reason: String) {
        switch policy.check(url) {
        case .success: Issue.record("allowed \(url)")
        case .failure(let error): #expect(error.description == reason)
        }
    }

    @Test func refusesLongURLs() {
        let url = "https://hooks.example.com/" + String(repeating: "a", count: 3000)
        #expect(throws: HostAllowListError.self) { try policy.check(url).get() }
    }

    @Test(arguments: ["", "http://x.example", "x.example/path", "user@x.example", "x.example:0", "x.example:99999",
                      "x.example:", "::1", "x example"])
    func refusesMalformedEntries(entry: String) {
        #expect {
            _ = try HostAllowList(allowing: [entry])
        } throws: { error in
            (error as? HostAllowListError)?.description
                == "webhook host '\(entry)': expected host or host:port (an IPv6 address in brackets)"
        }
    }
}
