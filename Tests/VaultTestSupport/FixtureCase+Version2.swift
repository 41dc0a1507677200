// vault: the one frozen 1.x fixture whose outcome a format 2.0 reader changes.

extension FixtureCase {
    /// The error a reader that implements format 2.0 reports for this case.
    ///
    /// `Fixtures/v1/header_future_major.vault` is a 1.0 file whose major field was set to 2 and
    /// whose checksum was left as it was: "a future major" for a 1.x reader (R-HDR-2,
    /// `unsupportedVersion`), but a damaged header for a reader that knows major 2 (R-HDR-5,
    /// `headerCorrupt`). The frozen manifest keeps the 1.x outcome.
    ///
    /// Spec: Spec/format-v2.md, "Version" (R2-VER-3).
    public var errorForVersion2Reader: String? {
        name == "header_future_major" ? "headerCorrupt" : error
    }
}
