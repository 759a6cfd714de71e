import Foundation
import SchemaRuntime
import Testing

/// Every column type reads back what it stored, bit for bit, and refuses what does not fit.
@Suite struct StorableValueTests {
    private func roundTrip<Value: StorableValue & Equatable>(_ value: Value) throws -> Bool {
        try Value(storedValue: value.storedValue) == value
    }

    @Test func valuesReadBackExactly() throws {
        #expect(try roundTrip(Int.min) && roundTrip(Int64.max) && roundTrip(UInt64.max) && roundTrip(UInt.max) && roundTrip(Int8.min))
        #expect(try roundTrip(true) && roundTrip(false) && roundTrip("Ünïcode ✓\u{0}") && roundTrip(Data()) && roundTrip(Data([0, 255])))
        #expect(try roundTrip(Date(timeIntervalSinceReferenceDate: 1.000_000_000_1)) && roundTrip(Decimal(string: "-0.000000000000000000001")!))
        #expect(try roundTrip(URL(string: "https://a.example/x?y#z")!) && roundTrip(UUID()))
        #expect(try roundTrip(Optional<Int>.none) && roundTrip(Optional(3)))
        for double in [0.0, -0.0, .nan, .infinity, -.infinity, .leastNonzeroMagnitude, .greatestFiniteMagnitude] {
            #expect(try Double(storedValue: double.storedValue).bitPattern == double.bitPattern)
            #expect(try Float(storedValue: Float(double).storedValue).bitPattern == Float(double).bitPattern)
        }
    }

    @Test func valuesThatDoNotFitThrow() {
        #expect(throws: StoredValueError.self) { try Int8(storedValue: .integer(300)) }
        #expect(throws: StoredValueError.self) { try UInt8(storedValue: .integer(-1)) }
        #expect(throws: StoredValueError.self) { try Bool(storedValue: .integer(2)) }
        #expect(throws: StoredValueError.self) { try String(storedValue: .null) }
        #expect(throws: StoredValueError.self) { try Int(storedValue: .text("1")) }
        #expect(throws: StoredValueError.self) { try UUID(storedValue: .text("not a uuid")) }
        #expect(throws: StoredValueError.self) { try Decimal(storedValue: .text("abc")) }
        #expect(throws: StoredValueError.self) { try Double(storedValue: .blob(Data([1, 2, 3]))) }
        #expect((try? Int?(storedValue: .null)) == .some(nil))
    }
}
