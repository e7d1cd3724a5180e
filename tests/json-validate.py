#!/usr/bin/env python3
"""Validate a JSON document against a definition of docs/json-schema.json.

usage: json-validate.py SCHEMA DEFINITION [FILE]   (FILE default: stdin)

A small validator for the subset the schema uses (type, const, enum,
minimum, properties, required, additionalProperties, items, $ref to
#/$defs/NAME), so the tests need nothing from pip. It also insists that
the document is one line of valid UTF-8 and that the raw text holds no
control character (C0, DEL, C1) or bidirectional control: strings from
sandboxed processes must come out escaped. Prints each problem; exits 1
if there is one."""
import json, sys

TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}

def check(value, schema, root, where, problems):
    if "$ref" in schema:
        name = schema["$ref"].split("/")[-1]
        return check(value, root["$defs"][name], root, where, problems)
    if "const" in schema and value != schema["const"]:
        problems.append(f"{where}: {value!r} is not {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        problems.append(f"{where}: {value!r} is not one of {schema['enum']}")
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        def fits(t):
            if t == "integer":
                return isinstance(value, int) and not isinstance(value, bool)
            if t in ("object", "array", "string", "null"):
                return isinstance(value, TYPES[t])
            if t == "boolean":
                return isinstance(value, bool)
            raise SystemExit(f"json-validate: unknown type {t}")
        if not any(fits(t) for t in types):
            problems.append(f"{where}: {value!r} is not {' or '.join(types)}")
            return
    if "minimum" in schema and isinstance(value, int) and value < schema["minimum"]:
        problems.append(f"{where}: {value} < {schema['minimum']}")
    if isinstance(value, dict):
        props = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in value:
                problems.append(f"{where}: missing {key!r}")
        for key, v in value.items():
            if key in props:
                check(v, props[key], root, f"{where}.{key}", problems)
            elif schema.get("additionalProperties") is False:
                problems.append(f"{where}: unexpected {key!r}")
    if isinstance(value, list) and "items" in schema:
        for i, v in enumerate(value):
            check(v, schema["items"], root, f"{where}[{i}]", problems)

def raw_problems(data):
    problems = []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        return [f"not valid UTF-8: {e}"]
    body = text[:-1] if text.endswith("\n") else text
    if "\n" in body:
        problems.append("the document is not on one line")
    for c in body:
        o = ord(c)
        if o < 0x20 or o == 0x7f or 0x80 <= o <= 0x9f or o in (0x61c, 0x200e, 0x200f) \
                or 0x2028 <= o <= 0x202e or 0x2066 <= o <= 0x2069:
            problems.append(f"raw U+{o:04X} in the text")
    return problems

def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        root = json.load(f)
    data = open(sys.argv[3], "rb").read() if len(sys.argv) == 4 else sys.stdin.buffer.read()
    problems = raw_problems(data)
    try:
        doc = json.loads(data)
    except ValueError as e:
        problems.append(f"not JSON: {e}")
    else:
        check(doc, root["$defs"][sys.argv[2]], root, "$", problems)
    for p in problems:
        print(p)
    sys.exit(1 if problems else 0)

main()
