/// "Did you mean ...?" for misspelt keys and names.
public enum NameSuggestion {
    /// Keys that set one thing in different ways: a near miss of one names them all.
    static let alternatives: [[String]] = [["gainDb", "volume"]]
    /// Words that are far from a key's spelling but mean it.
    static let synonyms: [String: String] = ["level": "volume", "amplitude": "volume", "vol": "volume", "gain": "gainDb"]

    /// What `name` was most likely meant to be among `candidates`: the closest candidate, or all of its alternatives
    /// that are candidates too (`gain` -> `gainDb` or `volume`); empty if none is close.
    public static func suggestions(for name: String, among candidates: [String]) -> [String] {
        let meant = synonyms[name.lowercased()].flatMap { candidates.contains($0) ? $0 : nil } ?? closest(to: name, among: candidates)
        guard let meant else { return [] }
        let group = alternatives.first { $0.contains(meant) }?.filter(candidates.contains) ?? []
        return group.count > 1 ? group : [meant]
    }

    /// The candidate `name` was most likely meant to be, or nil if none is close.
    ///
    /// Case, `_`, `-` and spaces are ignored (`fade_in` -> `fadeIn`, `scurve` -> `sCurve`), a unit suffix
    /// may be left out (`gain` -> `gainDb`), one name may start with the other (`fastest` -> `fast`), and up to
    /// a third of the letters may be wrong, missing, extra or swapped (`gian` -> `gainDb`, `logarithmc` -> `logarithmic`).
    public static func closest(to name: String, among candidates: [String]) -> String? {
        let wanted = normalized(name)
        guard !wanted.isEmpty else { return nil }
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            var forms = [normalized(candidate)]
            for suffix in ["Db", "Ms", "Seconds"] where candidate.hasSuffix(suffix) && candidate.count > suffix.count {
                forms.append(normalized(String(candidate.dropLast(suffix.count))))
            }
            for form in forms {
                let distance = editDistance(Array(wanted), Array(form))
                let isPrefix = min(wanted.count, form.count) >= 3 && (wanted.hasPrefix(form) || form.hasPrefix(wanted))
                guard distance <= max(1, form.count / 3) || isPrefix else { continue }
                if best == nil || distance < best!.distance { best = (candidate, distance) }
            }
        }
        return best?.candidate
    }

    private static func normalized(_ text: String) -> String {
        String(text.lowercased().filter { $0 != "_" && $0 != "-" && $0 != " " })
    }

    /// Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours.
    private static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[a.count][b.count]
    }
}
