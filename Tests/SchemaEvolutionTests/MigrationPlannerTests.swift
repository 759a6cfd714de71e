import Foundation
import SchemaEvolution
import Testing

/// The planner on hand-written shapes: every kind of change, what it infers, what it lists as
/// deleted, and what it refuses without a migration.
@Suite struct MigrationPlannerTests {
    static let message = EntityShape("Message", fields: [
        FieldShape("id", "String", column: .text),
        FieldShape("text", "String", column: .text),
        FieldShape("score", "Int?", column: .integer),
    ], relations: [RelationShape("chat", to: "Chat", inverse: "messages")])
    static let chat = EntityShape("Chat", fields: [FieldShape("id", "String", column: .text)],
                                  relations: [RelationShape("messages", to: "Message", toMany: true, inverse: "chat")])
    static let v1 = SchemaShape(entities: [message, chat])

    private func edited(_ body: (inout SchemaShape) -> Void) -> SchemaShape {
        var shape = Self.v1
        body(&shape)
        return shape
    }

    @Test func theSameShapeNeedsNothing() {
        let plan = MigrationPlanner.plan(from: Self.v1, to: Self.v1)
        #expect(plan.isEmpty)
        #expect(plan.problems.isEmpty)
        #expect(plan.description == "no changes")
        #expect(plan.columnSources["Message"]?["text"] == .copy(from: "text"))
    }

    @Test func newFieldsAreFilledWithNilOrTheirDefaultOrRefused() {
        let new = edited { shape in
            shape.entities[0].fields += [
                FieldShape("note", "String?", column: .text),
                FieldShape("views", "Int", column: .integer, defaultValue: "0"),
                FieldShape("kind", "String", column: .text),
            ]
        }
        let plan = MigrationPlanner.plan(from: Self.v1, to: new)
        #expect(plan.steps == [
            .addField(entity: "Message", field: "note", type: "String?", fill: .null),
            .addField(entity: "Message", field: "views", type: "Int", fill: .defaultValue("0")),
        ])
        #expect(plan.problems.map(\.member) == ["kind"])
        #expect(plan.problems[0].description.contains("new required field String has no default"))
        let helped = MigrationPlanner.plan(from: Self.v1, to: new, migratedFields: [.init("Message", "kind")])
        #expect(helped.problems.isEmpty)
        #expect(helped.columnSources["Message"]?["kind"] == .migration)
    }

    @Test func removedThingsAreListedAsDeletions() {
        let new = SchemaShape(entities: [EntityShape("Message", fields: [FieldShape("id", "String", column: .text)])])
        let plan = MigrationPlanner.plan(from: Self.v1, to: new)
        #expect(plan.deletesData)
        #expect(Set(plan.deletions) == [
            .removeEntity("Chat"), .removeField(entity: "Message", field: "text"), .removeField(entity: "Message", field: "score"),
            .removeRelation(entity: "Message", relation: "chat"),
        ])
        #expect(plan.description.contains("- entity Chat: removed; its rows and links are deleted"))
    }

    @Test func renamesCarryDataAndExactNamesWin() {
        let new = SchemaShape(entities: [
            EntityShape("Post", renamedFrom: ["Message"], fields: [
                FieldShape("id", "String", column: .text),
                FieldShape("body", "String", column: .text, renamedFrom: ["text"]),
                FieldShape("score", "Int?", column: .integer),
            ], relations: [RelationShape("thread", to: "Thread", inverse: "posts", renamedFrom: ["chat"])]),
            EntityShape("Thread", renamedFrom: ["Chat"], fields: [FieldShape("id", "String", column: .text)],
                        relations: [RelationShape("posts", to: "Post", toMany: true, inverse: "thread", renamedFrom: ["messages"])]),
        ])
        let plan = MigrationPlanner.plan(from: Self.v1, to: new)
        #expect(plan.problems.isEmpty)
        #expect(!plan.deletesData)
        #expect(plan.entitySources == ["Post": "Message", "Thread": "Chat"])
        #expect(plan.columnSources["Post"]?["body"] == .copy(from: "text"))
        #expect(plan.relationSources[.init("Post", "thread")] == .init("Message", "chat"))
        #expect(plan.relationSources[.init("Thread", "posts")] == .init("Chat", "messages"))
        #expect(plan.steps.contains(.renameField(entity: "Post", from: "text", to: "body")))
        // A renamed inverse is not an inverse change.
        #expect(!plan.steps.contains { if case .changeInverse = $0 { true } else { false } })
    }

    @Test func twoClaimsOnOneStoredNameAreAProblem() {
        let new = edited { shape in
            shape.entities[0].fields.append(FieldShape("body", "String", column: .text, defaultValue: "\"\"", renamedFrom: ["text"]))
        }
        let plan = MigrationPlanner.plan(from: Self.v1, to: new)
        #expect(plan.problems.count == 1)
        #expect(plan.problems[0].message.contains("several fields claim the stored field text"))
    }

    @Test func typeChangesNeedAMigrationAndIdTypeChangesAreRefused() {
        let new = edited { shape in
            shape.entities[0].fields[1] = FieldShape("text", "Int", column: .integer)
            shape.entities[1].fields[0] = FieldShape("id", "Int", column: .integer)
        }
        let plan = MigrationPlanner.plan(from: Self.v1, to: new, migratedFields: [.init("Chat", "id")])
        #expect(Set(plan.problems.map(\.entity)) == ["Message", "Chat"])
        #expect(plan.problems.contains { $0.message == "type changed from String to Int" })
        #expect(plan.problems.contains { $0.message == "the id type changed from String to Int" })
        let helped = MigrationPlanner.plan(from: Self.v1, to: new, migratedFields: [.init("Message", "text")])
        #expect(helped.columnSources["Message"]?["text"] == .migration)
        #expect(helped.steps.contains(.convertField(entity: "Message", field: "text", from: "String", to: "Int")))
    }

    @Test func optionalityChanges() {
        let required = edited { $0.entities[0].fields[2] = FieldShape("score", "Int", column: .integer, defaultValue: "1") }
        let plan = MigrationPlanner.plan(from: Self.v1, to: required)
        #expect(plan.columnSources["Message"]?["score"] == .copyReplacingNil(from: "score"))
        #expect(plan.steps == [.makeRequired(entity: "Message", field: "score", fill: .defaultValue("1"))])
        let withoutDefault = edited { $0.entities[0].fields[2] = FieldShape("score", "Int", column: .integer) }
        #expect(MigrationPlanner.plan(from: Self.v1, to: withoutDefault).problems.count == 1)
        let back = MigrationPlanner.plan(from: required, to: Self.v1)
        #expect(back.steps == [.makeOptional(entity: "Message", field: "score")])
        #expect(back.columnSources["Message"]?["score"] == .copy(from: "score"))
    }

    @Test func relationChanges() {
        let new = edited { shape in
            shape.entities[1].relations[0].isToMany = false
            shape.entities[0].relations.append(RelationShape("replyTo", to: "Message"))
        }
        let plan = MigrationPlanner.plan(from: Self.v1, to: new)
        #expect(plan.steps == [
            .addRelation(entity: "Message", relation: "replyTo"),
            .changeCardinality(entity: "Chat", relation: "messages", toMany: false),
        ])
        // A relation now pointing at another entity is a new relation: the old links are deleted.
        let retargeted = edited { $0.entities[0].relations[0] = RelationShape("chat", to: "Message") ; $0.entities[1].relations = [] }
        let steps = MigrationPlanner.plan(from: Self.v1, to: retargeted).steps
        #expect(steps.contains(.removeRelation(entity: "Message", relation: "chat")))
        #expect(steps.contains(.addRelation(entity: "Message", relation: "chat")))
    }

    @Test func shapesRoundTripThroughJSONAndOlderRecordsDecode() throws {
        let data = try JSONEncoder().encode(Self.v1)
        #expect(try JSONDecoder().decode(SchemaShape.self, from: data) == Self.v1)
        let minimal = #"{"entities":[{"name":"A","fields":[{"name":"id","type":"Int","column":"INTEGER"}]}]}"#
        let decoded = try JSONDecoder().decode(SchemaShape.self, from: Data(minimal.utf8))
        #expect(decoded.entities[0].fields[0] == FieldShape("id", "Int", column: .integer))
    }
}
