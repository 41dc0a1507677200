// vault: what a JSON export's decoding error says, without quoting a value.

/// A `DecodingError` as an ``ImportProblem``: the key or the path at fault, never the value there.
enum DecodingProblem {
    /// - Parameters:
    ///   - error: What `JSONDecoder` threw.
    ///   - wording: Puts the short reason (`no 'items' key`) into the sentence of the caller.
    static func problem(_ error: any Error, _ wording: (String) -> String = { $0 }) -> ImportProblem {
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            ImportProblem(
                wording("no '\(key.stringValue)' key"),
                code: .missingField,
                field: path(context.codingPath + [key])
            )
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            ImportProblem(
                wording("unexpected value at \(path(context.codingPath))"),
                field: path(context.codingPath)
            )
        default:
            ImportProblem(wording("not valid JSON"))
        }
    }

    private static func path(_ codingPath: [any CodingKey]) -> String {
        codingPath.map(\.stringValue).joined(separator: ".")
    }
}
