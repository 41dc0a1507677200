#!/usr/bin/env python3
# vault: turns a `swift-api-digester -dump-sdk` JSON file into the sorted, one-declaration-a-line
# listing that API/<Module>.txt holds. Only what an outside package sees is kept: declarations the
# digester marks internal (`package` access) and SPI declarations (`@_spi`) are dropped, with
# everything under them. Usage: api-listing.py <dump.json> <module> > API/<module>.txt
import json
import re
import subprocess
import sys

# Attributes that describe storage or codegen, not the API an app compiles against.
TYPE_KINDS = {"TypeNominal", "TypeFunc", "TypeNameAlias"}

NOISE = {"HasInitialValue", "HasStorage", "Transparent", "Inlinable", "UsableFromInline", "Frozen", "EagerMove"}


def signature(node):
    """The types a declaration mentions (result first for functions), as the compiler prints them."""
    return ", ".join(child.get("printedName", "") for child in node.get("children", []) if child["kind"] in TYPE_KINDS)


def typed_throws(root):
    """The thrown type of each function with typed throws (`YK` in its mangled name), which the
    digester records only inside the mangled name: `swift demangle` prints it."""
    names = []

    def collect(node):
        name = node.get("mangledName", "")
        if node.get("throwing") and "YK" in name:
            names.append(name)
        for child in node.get("children", []):
            collect(child)

    collect(root)
    if not names:
        return {}
    output = subprocess.run(
        ["swift", "demangle", "--compact"], input="\n".join(names), capture_output=True, text=True, check=True
    ).stdout.splitlines()
    thrown = {}
    for name, text in zip(names, output):
        found = re.findall(r"throws\(([^()]+)\)", text)
        if found:
            thrown[name] = found[-1]  # the declaration's own, after any closure parameter's
    return thrown


THROWN = {}


def flags(node):
    out = []
    for key in ("static", "throwing", "isOpen", "isLet", "hasMissingDesignatedInitializers", "isAsync"):
        if node.get(key):
            out.append(key)
    if node.get("mangledName") in THROWN:
        out[out.index("throwing")] = f"throws({THROWN[node['mangledName']]})"
    if node.get("funcSelfKind") == "Mutating":
        out.append("mutating")
    if node.get("genericSig"):
        out.append("where " + node["genericSig"])
    attributes = [a for a in node.get("declAttributes", []) if a not in NOISE]
    if attributes:
        out.append("@" + " @".join(sorted(attributes)))
    accessors = [a.get("accessorKind", a["name"]) for a in node.get("accessors", []) if not a.get("isInternal")]
    if accessors:
        out.append("{" + " ".join(accessors) + "}")
    defaults = [str(i) for i, c in enumerate(node.get("children", [])) if c.get("hasDefaultArg")]
    if defaults:
        out.append("defaults " + ",".join(defaults))
    return out


def visible(node):
    return not node.get("isInternal") and not node.get("spi_group_names") and node["kind"] != "Import"


MODULE = sys.argv[2]


def walk(node, path, lines):
    for child in node.get("children", []):
        if child["kind"] in TYPE_KINDS or not visible(child):
            continue
        name = child.get("printedName", child.get("name", "?"))
        full = f"{path}.{name}" if path else name
        line = f"{child.get('declKind', child['kind'])} {full}"
        types = signature(child)
        if types:
            line += f" : {types}"
        extra = flags(child)
        if child["kind"] == "TypeDecl":
            conformances = sorted(
                c["printedName"]
                for c in child.get("conformances", [])
                # A standard-library type extended here: only the conformances this module adds.
                if child.get("moduleName") == MODULE or MODULE in c.get("usr", "")
            )
            if conformances:
                extra.append("conforms " + ", ".join(conformances))
        if extra:
            line += "  [" + "; ".join(extra) + "]"
        lines.append((full, line))
        if child["kind"] == "TypeDecl":
            walk(child, full, lines)


def main():
    dump, module = sys.argv[1], sys.argv[2]
    root = json.load(open(dump))["ABIRoot"]
    THROWN.update(typed_throws(root))
    lines = []
    walk(root, "", lines)
    print(f"# Public API of {module}: regenerate with `make api-baseline`, check with scripts/api-check.sh.")
    for _, line in sorted(set(lines)):
        print(line)


main()
