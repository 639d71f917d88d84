/// mixrender's version: printed by `mixrender --version`, written in render reports, and part of every
/// cache key (a new version may render the same plan differently).
public enum MixrenderVersion {
    public static let string = "0.16.0"
}
