/// The JSON Schema of the `*.schema.json` syntax, for editors (completion and checking as
/// you type). `schemagen json-schema` prints it; `docs/schemagen-format.json` is a copy that
/// a test keeps identical. Its name deliberately does not end in `.schema.json`, so copying
/// it into a target does not make the build plugin read it as a schema.
public enum SchemaFileFormat {
    public static let jsonSchema = #"""
{
  "$schema": "http://json-schema.org/draft-07/schema#",
  "$id": "schemagen-format.json",
  "title": "SchemaGen schema file (*.schema.json)",
  "description": "Entities, enums, value structs and external types compiled by schemagen into Swift. Mirrors the *.schema DSL; see docs/SchemaLanguage.md.",
  "type": "object",
  "additionalProperties": false,
  "required": ["declarations"],
  "properties": {
    "$schema": {"type": "string"},
    "namespace": {
      "description": "An enum declared in Swift whose members the file's types are also reachable as: \"Models.V1\" makes Models.V1.User name User.",
      "type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*$"
    },
    "aliases": {
      "description": "More names the namespace gives the file's types: {\"RichProperty\": \"IndexedRichProperty\"} makes Indexed.RichProperty name IndexedRichProperty.",
      "type": "object", "additionalProperties": {"type": "string"}
    },
    "declarations": {
      "type": "array",
      "items": {"oneOf": [
        {"$ref": "#/definitions/entity"},
        {"$ref": "#/definitions/enum"},
        {"$ref": "#/definitions/struct"},
        {"$ref": "#/definitions/external"}
      ]}
    }
  },
  "definitions": {
    "name": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*$", "maxLength": 128},
    "access": {"enum": ["internal", "package", "public"]},
    "doc": {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
    "type": {"type": "string", "description": "A Swift type: String, Int?, [Tag], [String: Int]."},
    "renamedFrom": {
      "description": "Names this entity, field or relation had in earlier schema versions: a store written with them keeps its data under the new name.",
      "oneOf": [{"$ref": "#/definitions/name"}, {"type": "array", "minItems": 1, "items": {"$ref": "#/definitions/name"}}]
    },
    "defaultValue": {
      "description": "A literal; {\"case\": \"name\"} for an enum case; {} for an empty dictionary.",
      "oneOf": [
        {"type": ["string", "number", "boolean", "null"]},
        {"type": "array", "items": {"$ref": "#/definitions/defaultValue"}},
        {"type": "object", "additionalProperties": false, "properties": {"case": {"$ref": "#/definitions/name"}}}
      ]
    },
    "field": {
      "type": "object",
      "additionalProperties": false,
      "oneOf": [{"required": ["let", "type"]}, {"required": ["var", "type"]}],
      "properties": {
        "let": {"$ref": "#/definitions/name"},
        "var": {"$ref": "#/definitions/name"},
        "type": {"$ref": "#/definitions/type"},
        "default": {"$ref": "#/definitions/defaultValue"},
        "renamedFrom": {"$ref": "#/definitions/renamedFrom"},
        "doc": {"$ref": "#/definitions/doc"}
      }
    },
    "relation": {
      "type": "object",
      "additionalProperties": false,
      "required": ["relation", "target"],
      "properties": {
        "relation": {"$ref": "#/definitions/name"},
        "target": {"$ref": "#/definitions/name"},
        "toMany": {"type": "boolean"},
        "required": {"type": "boolean", "description": "To-one only: the relation cannot be set to .null."},
        "inverse": {"$ref": "#/definitions/name"},
        "onDelete": {"enum": ["nullify", "cascade"]},
        "renamedFrom": {"$ref": "#/definitions/renamedFrom"},
        "doc": {"$ref": "#/definitions/doc"}
      }
    },
    "index": {
      "type": "object",
      "additionalProperties": false,
      "required": ["kind", "fields"],
      "properties": {
        "kind": {"enum": ["ordered", "hash", "unique", "fulltext"]},
        "fields": {
          "type": "array",
          "minItems": 1,
          "items": {"oneOf": [
            {"$ref": "#/definitions/name"},
            {"type": "object", "additionalProperties": false, "required": ["name"],
             "properties": {"name": {"$ref": "#/definitions/name"}, "descending": {"type": "boolean"}}}
          ]}
        },
        "onCollision": {"type": "string", "description": "unique only: throw, upsert, or the name of a CollisionResolver written in Swift."}
      }
    },
    "mergeRule": {
      "oneOf": [
        {"enum": ["replace", "patch"]},
        {"type": "object", "minProperties": 1, "maxProperties": 1, "additionalProperties": false, "properties": {
          "patch": {"type": "array", "items": {"$ref": "#/definitions/name"}},
          "append": {"type": "array", "items": {"$ref": "#/definitions/name"}},
          "lastWriteWins": {"oneOf": [{"$ref": "#/definitions/name"}, {"type": "array", "items": {"$ref": "#/definitions/name"}, "minItems": 1, "maxItems": 1}]}
        }}
      ]
    },
    "entity": {
      "type": "object",
      "additionalProperties": false,
      "required": ["entity", "fields"],
      "properties": {
        "entity": {"$ref": "#/definitions/name"},
        "access": {"$ref": "#/definitions/access"},
        "renamedFrom": {"$ref": "#/definitions/renamedFrom"},
        "doc": {"$ref": "#/definitions/doc"},
        "fields": {"type": "array", "items": {"$ref": "#/definitions/field"}},
        "relations": {"type": "array", "items": {"$ref": "#/definitions/relation"}},
        "indexes": {"type": "array", "items": {"$ref": "#/definitions/index"}},
        "merge": {"type": "object", "additionalProperties": false, "properties": {
          "default": {"type": "array", "items": {"$ref": "#/definitions/mergeRule"}},
          "fragment": {"type": "array", "items": {"$ref": "#/definitions/mergeRule"}}
        }},
        "metadata": {"type": "array", "items": {"enum": ["updatedAt", "softDelete"]}}
      }
    },
    "enum": {
      "type": "object",
      "additionalProperties": false,
      "required": ["enum", "rawType", "cases"],
      "properties": {
        "enum": {"$ref": "#/definitions/name"},
        "access": {"$ref": "#/definitions/access"},
        "doc": {"$ref": "#/definitions/doc"},
        "rawType": {"enum": ["String", "Int"]},
        "cases": {"type": "array", "items": {"oneOf": [
          {"$ref": "#/definitions/name"},
          {"type": "object", "additionalProperties": false, "required": ["name"], "properties": {
            "name": {"$ref": "#/definitions/name"},
            "rawValue": {"type": ["string", "integer"]},
            "doc": {"$ref": "#/definitions/doc"}
          }}
        ]}}
      }
    },
    "struct": {
      "type": "object",
      "additionalProperties": false,
      "required": ["struct", "fields"],
      "properties": {
        "struct": {"$ref": "#/definitions/name"},
        "access": {"$ref": "#/definitions/access"},
        "doc": {"$ref": "#/definitions/doc"},
        "fields": {"type": "array", "items": {"$ref": "#/definitions/field"}}
      }
    },
    "external": {
      "type": "object",
      "additionalProperties": false,
      "required": ["external"],
      "properties": {
        "external": {"$ref": "#/definitions/name"},
        "conformances": {"type": "array", "items": {"enum": ["Equatable", "Hashable", "Comparable"]}}
      }
    }
  }
}
"""#
}
