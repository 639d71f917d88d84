/// A moment on a render's timeline: a time, or the start or end of one of a session's sections, so that a
/// schedule written against the script (10 Hz at the induction's start, 4 Hz at its end) stays with it
/// when a section before it stretches. Resolved to a frame at planning (`TrackPlanning.frame(of:key:)`).
///
/// A plain enum of a `Double` or a name and an edge (`Sendable`, safe to share); allocates only the name.
public enum TimelinePoint: Sendable, Equatable {
    public enum Edge: String, Sendable, CaseIterable { case start, end }
    /// Seconds from the render's start (on the final timeline).
    case seconds(Double)
    /// The start or end of the section called `name`.
    case section(String, edge: Edge)
}

extension JSONCursor {
    /// A time (`"5m"`, 300) or `{"section": "Deepener", "edge": "end"}` (`edge` defaults to `start`).
    func timelinePoint() throws -> TimelinePoint {
        guard case .object = value else { return .seconds(try time(allowingZero: true)) }
        let object = try self.object(allowing: ["section", "edge"])
        let name = try object.required("section", hint: "the name of one of the session's sections").nonEmptyString()
        let edge = try object["edge"]?.choice("edge", TimelinePoint.Edge.allCases.map { ($0.rawValue, $0) }) ?? .start
        return .section(name, edge: edge)
    }
}
