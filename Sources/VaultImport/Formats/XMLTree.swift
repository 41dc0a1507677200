// vault: a small element tree over libxml2, for KeePass XML.

import CLibXML2

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
        guard let context = xmlNewParserCtxt() else { throw ImportProblem("cannot start the XML reader") }
        defer { xmlFreeParserCtxt(context) }
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)
        guard bytes.count <= Int(Int32.max) else { throw ImportProblem("the XML document is over 2 GiB") }
        let document = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                xmlCtxtReadMemory(context, $0.baseAddress, Int32($0.count), nil, nil, options)
            }
        }
        guard let document else {
            let error = context.pointee.lastError
            throw ImportProblem(
                "not well-formed XML (libxml2 error \(error.code))",
                row: error.line > 0 ? Int(error.line) : nil
            )
        }
        defer { xmlFreeDoc(document) }
        if document.pointee.intSubset != nil || document.pointee.extSubset != nil {
            throw ImportProblem("not well-formed XML for this format: a document type declaration is not accepted")
        }
        guard let root = xmlDocGetRootElement(document) else { throw ImportProblem("not well-formed XML (empty)") }
        return tree(root)
    }

    /// The element at `node`, its children and its text (text and CDATA nodes, in order).
    private static func tree(_ node: xmlNodePtr) -> XMLTree {
        var attributes: [String: String] = [:]
        var attribute = node.pointee.properties
        while let a = attribute {
            var value = ""
            var part = a.pointee.children
            while let p = part {
                if let content = p.pointee.content { value += text(content) }
                part = p.pointee.next
            }
            attributes[text(a.pointee.name)] = value
            attribute = a.pointee.next
        }
        let element = XMLTree(name: text(node.pointee.name), attributes: attributes)
        var child = node.pointee.children
        while let c = child {
            switch c.pointee.type {
            case XML_ELEMENT_NODE: element.elements.append(tree(c))
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                if let content = c.pointee.content { element.buffer += text(content) }
            default: break
            }
            child = c.pointee.next
        }
        return element
    }

    private static func text(_ p: UnsafePointer<xmlChar>?) -> String {
        guard let p else { return "" }
        return String(cString: p)
    }

    private static func text(_ p: UnsafeMutablePointer<xmlChar>?) -> String { text(UnsafePointer(p)) }
}
