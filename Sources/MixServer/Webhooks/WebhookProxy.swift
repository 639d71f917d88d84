import AsyncHTTPClient
import Foundation

/// The proxy a webhook goes through, from the environment as curl reads it: `https_proxy` (or `HTTPS_PROXY`) for an
/// `https` receiver, `http_proxy` (lower case only, as curl: a CGI's `HTTP_PROXY` can come from a request's
/// `Proxy:` header) for an `http` one, then `all_proxy` (or `ALL_PROXY`); none for a host that `no_proxy` (or
/// `NO_PROXY`) names. A proxy is `[http://][user:password@]host[:port]` (an HTTP proxy, reached with `CONNECT`;
/// port 1080 if none) or `socks5://host[:port]`.
///
/// `no_proxy` is a comma-separated list of host names, each matching itself and its subdomains (a leading dot is
/// allowed), or `*` for every host. curl's address ranges (`10.0.0.0/8`) are not read: such an entry matches only
/// a host written exactly so.
struct WebhookProxy: Sendable, Equatable {
    /// A proxy setting that cannot be used; the delivery is retried on its schedule and the reason recorded.
    struct Problem: Error, Equatable, CustomStringConvertible {
        let description: String
    }

    var http: String?
    var https: String?
    var all: String?
    var noProxy: [String]

    init(environment: [String: String]) {
        func value(_ names: String...) -> String? {
            names.lazy.compactMap { environment[$0] }.map { $0.trimmingCharacters(in: .whitespaces) }.first { !$0.isEmpty }
        }
        http = value("http_proxy")
        https = value("https_proxy", "HTTPS_PROXY")
        all = value("all_proxy", "ALL_PROXY")
        noProxy = (value("no_proxy", "NO_PROXY") ?? "").split(separator: ",").map {
            var entry = $0.trimmingCharacters(in: .whitespaces).lowercased()
            if entry.hasPrefix(".") { entry.removeFirst() }
            return entry
        }.filter { !$0.isEmpty }
    }

    /// The proxy for a call to `url`, nil to go directly, or why the environment's setting cannot be used.
    func setting(for url: URL) -> Result<HTTPClient.Configuration.Proxy?, Problem> {
        let host = (url.host ?? "").lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if noProxy.contains(where: { $0 == "*" || host == $0 || host.hasSuffix("." + $0) }) { return .success(nil) }
        let (name, chosen): (String, String?) = url.scheme?.lowercased() == "https"
            ? (https != nil ? "https_proxy" : "all_proxy", https ?? all)
            : (http != nil ? "http_proxy" : "all_proxy", http ?? all)
        guard let chosen else { return .success(nil) }
        return Self.parse(chosen).map { Optional($0) }.mapError { Problem(description: "\(name) '\(chosen)' \($0.description)") }
    }

    /// A proxy written as curl takes it.
    static func parse(_ text: String) -> Result<HTTPClient.Configuration.Proxy, Problem> {
        let withScheme = text.contains("://") ? text : "http://" + text
        guard let parts = URLComponents(string: withScheme), let scheme = parts.scheme?.lowercased(),
              let host = parts.host, !host.isEmpty else {
            return .failure(Problem(description: "is not a proxy address ([http://][user:password@]host[:port], or socks5://host[:port])"))
        }
        let port = parts.port ?? 1080
        guard (1...65535).contains(port) else { return .failure(Problem(description: "has a port out of range")) }
        switch scheme {
        case "http":
            let authorization = parts.user.map { HTTPClient.Authorization.basic(username: $0.removingPercentEncoding ?? $0,
                                                                               password: (parts.password ?? "").removingPercentEncoding ?? "") }
            return .success(.server(host: host, port: port, authorization: authorization))
        case "socks5", "socks5h":
            guard parts.user == nil else { return .failure(Problem(description: "has a user: a SOCKS proxy is used without one")) }
            return .success(.socksServer(host: host, port: port))
        default:
            return .failure(Problem(description: "is a kind of proxy webhooks cannot use (http:// or socks5://)"))
        }
    }
}
