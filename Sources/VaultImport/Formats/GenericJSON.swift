// vault: the generic JSON layout (Spec/cli.md, "The generic JSON layout").

import FoundationEssentials

/// The JSON that `vaulttool export` writes: `{"format": "vault-items", "version": 1, "items": [...]}`.
enum GenericJSON {
    struct Document: Decodable {
        var format: String?
        var version: Int?
        var items: [Entry]
    }

    /// One item, decoded leniently so that one bad item is skipped rather than failing the file.
    struct Entry: Decodable {
        var result: Result<GenericItem, ImportProblem>
        init(from decoder: any Decoder) throws {
            do {
                result = .success(try GenericItem(from: decoder))
            } catch let problem as ImportProblem {
                result = .failure(problem)
            } catch {
                result = .failure(DecodingProblem.problem(error))
            }
        }
    }

    static func read(_ bytes: [UInt8]) throws -> ImportBatch {
        let document = try DecodingProblem.decode(Document.self, from: bytes) { "not the generic JSON layout (\($0))" }
        if let format = document.format, format != "vault-items" {
            throw ImportProblem(
                "the format is '\(format)', not 'vault-items'",
                code: .unsupportedLayout,
                field: "format"
            )
        }
        if let version = document.version, version != 1 {
            throw ImportProblem(
                "layout version \(version) needs a newer vaulttool",
                code: .unsupportedLayout,
                field: "version"
            )
        }
        var batch = ImportBatch()
        for (number, entry) in document.items.enumerated() {
            switch entry.result {
            case .failure(let problem):
                batch.skip("item \(number + 1)", .invalid(problem.reason))
            case .success(let item):
                batch.add(item, name: "item \(number + 1)")
            }
        }
        return batch
    }
}
