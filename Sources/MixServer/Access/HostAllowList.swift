import Foundation

/// The hosts the server may call on a client's behalf, as the operator listed them (`--webhook-host` for webhooks,
/// `--delivery-host` for uploads): a URL a request gives is taken only when it is `http` or `https`, with a host and
/// no user name or password, and its `host[:port]` is on the list. Webhooks and uploads are calls the server makes for
/// a client, so an open list would let any client make the server call anything it can reach (its own network, cloud
/// metadata).
///
/// Matching is exact: the host without regard to case, and the port as written. `hooks.example.com` allows
/// `https://hooks.example.com/x` but not `https://hooks.example.com:8443/x` (list `hooks.example.com:8443` for that),
/// nor `https://hooks.example.com:443/x`. IPv6 addresses are listed in brackets: `[::1]:9000`.
struct HostAllowList: Sendable, Equatable {
    /// The allowed `host[:port]` entries, hosts lowercased.
    let allowed: Set<String>
    /// What the URLs are for, as messages name them: `webhook`, `upload`.
    let subject: String

    /// The longest URL taken.
    static let maximumURLLength = 2048

    /// A list allowing `entries` (each `host` or `host:port`); throws a one-line error naming a malformed entry.
    init(allowing entries: [String], subject: String = "webhook") throws(HostAllowListError) {
        self.subject = subject
        var allowed = Set<String>()
        for entry in entries {
            let text = entry.trimmingCharacters(in: .whitespaces)
            // An entry is checked by reading it as the authority of a URL: what the URL check would compare.
            guard let key = Self.authorityKey(of: "http://\(text)/"), key == text.lowercased() else {
                throw HostAllowListError("\(subject) host '\(entry)': expected host or host:port (an IPv6 address in brackets)")
            }
            allowed.insert(key)
        }
        self.allowed = allowed
    }

    /// The URL if `text` is a URL on an allowed host; otherwise a one-line reason.
    func check(_ text: String) -> Result<URL, HostAllowListError> {
        guard text.utf8.count <= Self.maximumURLLength else {
            return .failure(HostAllowListError("\(subject) URL is longer than \(Self.maximumURLLength) bytes"))
        }
        guard let components = URLComponents(string: text), let url = components.url else {
            return .failure(HostAllowListError("\(subject) URL '\(text)' is not a URL"))
        }
        guard let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return .failure(HostAllowListError("\(subject) URL '\(text)' must be http or https"))
        }
        guard components.user == nil, components.password == nil else {
            return .failure(HostAllowListError("\(subject) URL must not carry a user name or password"))
        }
        guard let key = Self.authorityKey(of: text) else {
            return .failure(HostAllowListError("\(subject) URL '\(text)' has no usable host and port"))
        }
        guard allowed.contains(key) else {
            return .failure(HostAllowListError("\(subject) host '\(key)' is not one the server allows"))
        }
        return .success(url)
    }

    /// `host[:port]` of a URL as the allow list writes it (host lowercased, IPv6 in brackets, port only when the
    /// URL gives one), or nil when it has no usable host.
    private static func authorityKey(of text: String) -> String? {
        // (URLComponents gives IPv6 hosts with or without brackets depending on the Foundation version.)
        guard let components = URLComponents(string: text),
              let encodedHost = components.percentEncodedHost, !encodedHost.isEmpty,
              !encodedHost.contains("%") else { return nil }
        let host = bracketed(encodedHost.lowercased())
        // Only letters, digits, '-', '.', and an IPv6 address's brackets and colons: no other character can name a
        // host, and a wider set would let two spellings of one host differ.
        let permitted = host.utf8.allSatisfy { byte in
            (byte >= 0x61 && byte <= 0x7a) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2d || byte == 0x2e
                || byte == 0x5b || byte == 0x5d || byte == 0x3a
        }
        guard permitted else { return nil }
        if let port = components.port {
            guard (1...65535).contains(port) else { return nil }
            return "\(host):\(port)"
        }
        return host
    }

    /// An IPv6 address (it has colons) in brackets, as a URL writes it; anything else unchanged.
    private static func bracketed(_ host: String) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    }
}

/// Why a webhook URL, or an allow-list entry, is refused.
struct HostAllowListError: Error, Sendable, Equatable, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
