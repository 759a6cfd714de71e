#!/usr/bin/env python3
"""Writes the benchmark domain of the build-time scripts: N entities over PARTS schema files.

    scripts/write-domain-schemas.py DIRECTORY [PARTS] [N]

Each entity has 6 fields, a mutual to-one/to-many pair with the next entity (so the entities
refer to each other in one cycle, as mutual relations make them), a one-way to-many, an
ordered and a full-text index, and a fragment merge rule.
"""
import sys

directory = sys.argv[1]
parts = int(sys.argv[2]) if len(sys.argv) > 2 else 1
n = int(sys.argv[3]) if len(sys.argv) > 3 else 200
entities = []
for i in range(n):
    entities.append(f"""public entity E{i} {{
    let id: Int
    var name: String
    var title: String = ""
    var count: Int = 0
    var score: Double?
    var tags: [String] = []
    relation next: E{(i+1)%n}, inverse: previous
    relation previous: [E{(i-1)%n}], inverse: next
    relation seen: [E{(i+1)%n}]
    index ordered(count, name desc)
    index fulltext(name, title)
    merge fragment: patch, append(tags)
}}""")
size = -(-n // parts)
for part in range(parts):
    with open(f"{directory}/Domain{part}.schema", "w") as file:
        file.write("\n".join(entities[part * size:(part + 1) * size]) + "\n")
