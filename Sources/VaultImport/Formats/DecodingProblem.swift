// vault: what a JSON export's decoding error says, without quoting a value.

import FoundationEssentials

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

    /// `bytes` decoded as JSON into `type`, or the ``ImportProblem`` that says why not, in the
    /// caller's `wording`: the one JSON read of the JSON importers.
    static func decode<T: Decodable>(
        _ type: T.Type,
        from bytes: [UInt8],
        _ wording: (String) -> String
    ) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(bytes))
        } catch {
            throw problem(error, wording)
        }
    }

    private static func path(_ codingPath: [any CodingKey]) -> String {
        codingPath.map(\.stringValue).joined(separator: ".")
    }
}
