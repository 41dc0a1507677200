// vault: a small element tree over Foundation's XMLParser, for KeePass XML.

import Foundation
import FoundationXML

/// A small element tree built with Foundation's `XMLParser`; external entities are not resolved.
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
    /// - Throws: ``ImportProblem`` naming the line where the document stops being well-formed.
    static func parse(_ bytes: [UInt8]) throws -> XMLTree {
        let builder = Builder()
        let parser = XMLParser(data: Data(bytes))
        parser.shouldResolveExternalEntities = false
        parser.delegate = builder
        guard parser.parse(), let root = builder.root else {
            throw ImportProblem(
                "not well-formed XML (\(parser.parserError.map { "\($0.localizedDescription)" } ?? "empty"))",
                row: parser.parserError == nil ? nil : parser.lineNumber
            )
        }
        return root
    }

    private final class Builder: NSObject, XMLParserDelegate {
        var stack: [XMLTree] = []
        var root: XMLTree?

        func parser(
            _ parser: XMLParser,
            didStartElement name: String,
            namespaceURI: String?,
            qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            let element = XMLTree(name: name, attributes: attributes)
            stack.last?.elements.append(element)
            if stack.isEmpty { root = element }
            stack.append(element)
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            stack.removeLast()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            stack.last?.buffer += string
        }

        func parser(_ parser: XMLParser, foundCDATA block: Data) {
            stack.last?.buffer += String(decoding: block, as: UTF8.self)
        }
    }
}
