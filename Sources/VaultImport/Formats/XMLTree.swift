// vault: a small element tree over libxml2 (CVaultXML), for KeePass XML.

import CVaultXML

/// A small element tree read with libxml2: no network, no external entities, no document type
/// declaration (KeePass XML has none, and refusing one rules out entity expansion).
final class XMLTree {
    let name: String
    let attributes: [String: String]
    private(set) var elements: [XMLTree] = []
    private var buffer = ""

    init(name: String, attributes: [String: String]) {
        self.name = name
        self.attributes = attributes
    }

    /// The element's text (`nil` when empty).
    var text: String? { buffer.isEmpty ? nil : buffer }
    func child(_ name: String) -> XMLTree? { elements.first { $0.name == name } }
    func children(_ name: String) -> [XMLTree] { elements.filter { $0.name == name } }

    /// Parses a document and returns its root element.
    ///
    /// - Throws: ``ImportProblem`` naming the line where the document stops being well-formed
    ///   (libxml2's error number only: its message may quote the document, which holds secrets).
    static func parse(_ bytes: [UInt8]) throws -> XMLTree {
        let builder = Builder()
        var code: Int32 = 0
        var line: Int32 = 0
        var handlers = vault_xml_handlers(
            start: { context, name, attributes in
                var map: [String: String] = [:]
                var i = 0
                while let attributes, let key = attributes[i], let value = attributes[i + 1] {
                    map[String(cString: key)] = String(cString: value)
                    i += 2
                }
                Builder.of(context).start(String(cString: name!), map)
            },
            text: { context, text in Builder.of(context).stack.last?.buffer += String(cString: text!) },
            end: { context in _ = Builder.of(context).stack.popLast() }
        )
        let result = withExtendedLifetime(builder) {
            bytes.withUnsafeBufferPointer {
                vault_xml_walk(
                    $0.baseAddress,
                    $0.count,
                    &handlers,
                    Unmanaged.passUnretained(builder).toOpaque(),
                    &code,
                    &line
                )
            }
        }
        switch result {
        case Int32(VAULT_XML_OK):
            guard let root = builder.root else { throw ImportProblem("not well-formed XML (empty)") }
            return root
        case Int32(VAULT_XML_DOCTYPE):
            throw ImportProblem("not well-formed XML for this format: a document type declaration is not accepted")
        case Int32(VAULT_XML_UNAVAILABLE):
            throw ImportProblem(
                "libxml2 cannot be loaded (install it: Debian's libxml2): \(String(cString: vault_xml_load_error()))",
                code: .readerUnavailable
            )
        default:
            let at = line > 0 ? " at line \(line)" : ""
            throw ImportProblem("not well-formed XML\(at) (libxml2 error \(code))", row: line > 0 ? Int(line) : nil)
        }
    }

    /// Builds the tree from the walk's callbacks.
    private final class Builder {
        var stack: [XMLTree] = []
        var root: XMLTree?

        static func of(_ context: UnsafeMutableRawPointer?) -> Builder {
            Unmanaged<Builder>.fromOpaque(context!).takeUnretainedValue()
        }

        func start(_ name: String, _ attributes: [String: String]) {
            let element = XMLTree(name: name, attributes: attributes)
            stack.last?.elements.append(element)
            if stack.isEmpty { root = element }
            stack.append(element)
        }
    }
}
