import CDBus

/// D-Bus type codes (D-Bus specification, "Type System").
enum DBusTypeCode {
    static let invalid: Int32 = 0
    static let byte = code("y"), boolean = code("b"), int16 = code("n"), uint16 = code("q")
    static let int32 = code("i"), uint32 = code("u"), int64 = code("x"), uint64 = code("t")
    static let double = code("d"), string = code("s"), objectPath = code("o"), signature = code("g")
    static let array = code("a"), variant = code("v"), structure = code("r"), dictEntry = code("e")

    private static func code(_ character: Unicode.Scalar) -> Int32 { Int32(character.value) }
}

/// Reads ``DBusValue``s out of a libdbus message iterator.
enum DBusValueReader {
    static func readAll(_ iterator: inout DBusMessageIter) throws -> [DBusValue] {
        var values: [DBusValue] = []
        while dbus_message_iter_get_arg_type(&iterator) != DBusTypeCode.invalid {
            values.append(try read(&iterator))
            dbus_message_iter_next(&iterator)
        }
        return values
    }

    static func read(_ iterator: inout DBusMessageIter) throws -> DBusValue {
        let type = dbus_message_iter_get_arg_type(&iterator)
        switch type {
        case DBusTypeCode.byte: return .byte(basic(&iterator, UInt8(0)))
        case DBusTypeCode.boolean: return .boolean(basic(&iterator, dbus_bool_t(0)) != 0)
        case DBusTypeCode.int16: return .int16(basic(&iterator, Int16(0)))
        case DBusTypeCode.uint16: return .uint16(basic(&iterator, UInt16(0)))
        case DBusTypeCode.int32: return .int32(basic(&iterator, Int32(0)))
        case DBusTypeCode.uint32: return .uint32(basic(&iterator, UInt32(0)))
        case DBusTypeCode.int64: return .int64(basic(&iterator, Int64(0)))
        case DBusTypeCode.uint64: return .uint64(basic(&iterator, UInt64(0)))
        case DBusTypeCode.double: return .double(basic(&iterator, Double(0)))
        case DBusTypeCode.string: return .string(text(&iterator))
        case DBusTypeCode.objectPath: return .objectPath(text(&iterator))
        case DBusTypeCode.signature: return .signature(text(&iterator))
        case DBusTypeCode.variant:
            var inner = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &inner)
            return .variant(try read(&inner))
        case DBusTypeCode.structure:
            var inner = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &inner)
            return .structure(try readAll(&inner))
        case DBusTypeCode.array:
            return try readArray(&iterator)
        default:
            throw DBusFailure.malformedMessage
        }
    }

    private static func readArray(_ iterator: inout DBusMessageIter) throws -> DBusValue {
        let signature = containerSignature(&iterator)
        let elementSignature = String(signature.dropFirst())
        var inner = DBusMessageIter()
        dbus_message_iter_recurse(&iterator, &inner)
        switch dbus_message_iter_get_element_type(&iterator) {
        case DBusTypeCode.byte:
            var start: UnsafePointer<UInt8>? = nil
            var count: Int32 = 0
            withUnsafeMutablePointer(to: &start) { dbus_message_iter_get_fixed_array(&inner, $0, &count) }
            guard let start, count > 0 else { return .bytes([]) }
            return .bytes(Array(UnsafeBufferPointer(start: start, count: Int(count))))
        case DBusTypeCode.dictEntry:
            // "{kv...}": one-character key (basic type), the rest is the value's signature.
            let body = elementSignature.dropFirst().dropLast()
            guard let key = body.first else { throw DBusFailure.malformedMessage }
            var entries: [DBusDictEntry] = []
            while dbus_message_iter_get_arg_type(&inner) == DBusTypeCode.dictEntry {
                var entry = DBusMessageIter()
                dbus_message_iter_recurse(&inner, &entry)
                let fields = try readAll(&entry)
                guard fields.count == 2 else { throw DBusFailure.malformedMessage }
                entries.append(DBusDictEntry(key: fields[0], value: fields[1]))
                dbus_message_iter_next(&inner)
            }
            return .dictionary(keySignature: String(key), valueSignature: String(body.dropFirst()), entries)
        default:
            return .array(elementSignature: elementSignature, try readAll(&inner))
        }
    }

    private static func basic<T: BitwiseCopyable>(_ iterator: inout DBusMessageIter, _ initial: T) -> T {
        var value = initial
        dbus_message_iter_get_basic(&iterator, &value)
        return value
    }

    private static func text(_ iterator: inout DBusMessageIter) -> String {
        var pointer: UnsafePointer<CChar>? = nil
        dbus_message_iter_get_basic(&iterator, &pointer)
        return pointer.map { String(cString: $0) } ?? ""
    }

    private static func containerSignature(_ iterator: inout DBusMessageIter) -> String {
        guard let raw = dbus_message_iter_get_signature(&iterator) else { return "" }
        defer { dbus_free(raw) }
        return String(cString: raw)
    }
}

/// Writes ``DBusValue``s into a libdbus message iterator.
enum DBusValueWriter {
    static func write(_ value: DBusValue, into iterator: inout DBusMessageIter) throws {
        let ok: Bool
        switch value {
        case .byte(let v): ok = basic(&iterator, DBusTypeCode.byte, v)
        case .boolean(let v): ok = basic(&iterator, DBusTypeCode.boolean, dbus_bool_t(v ? 1 : 0))
        case .int16(let v): ok = basic(&iterator, DBusTypeCode.int16, v)
        case .uint16(let v): ok = basic(&iterator, DBusTypeCode.uint16, v)
        case .int32(let v): ok = basic(&iterator, DBusTypeCode.int32, v)
        case .uint32(let v): ok = basic(&iterator, DBusTypeCode.uint32, v)
        case .int64(let v): ok = basic(&iterator, DBusTypeCode.int64, v)
        case .uint64(let v): ok = basic(&iterator, DBusTypeCode.uint64, v)
        case .double(let v): ok = basic(&iterator, DBusTypeCode.double, v)
        case .string(let v): ok = text(&iterator, DBusTypeCode.string, v)
        case .objectPath(let v): ok = text(&iterator, DBusTypeCode.objectPath, v)
        case .signature(let v): ok = text(&iterator, DBusTypeCode.signature, v)
        case .bytes(let bytes):
            ok = try container(&iterator, DBusTypeCode.array, "y") { inner in
                guard !bytes.isEmpty else { return }
                let appended = bytes.withUnsafeBufferPointer { buffer in
                    var start = buffer.baseAddress
                    return dbus_message_iter_append_fixed_array(&inner, DBusTypeCode.byte, &start, Int32(buffer.count))
                }
                guard appended != 0 else { throw outOfMemory }
            }
        case .array(let elementSignature, let elements):
            ok = try container(&iterator, DBusTypeCode.array, elementSignature) { inner in
                for element in elements { try write(element, into: &inner) }
            }
        case .dictionary(let keySignature, let valueSignature, let entries):
            ok = try container(&iterator, DBusTypeCode.array, "{" + keySignature + valueSignature + "}") { inner in
                for entry in entries {
                    let entryOK = try container(&inner, DBusTypeCode.dictEntry, nil) { fields in
                        try write(entry.key, into: &fields)
                        try write(entry.value, into: &fields)
                    }
                    guard entryOK else { throw outOfMemory }
                }
            }
        case .structure(let fields):
            ok = try container(&iterator, DBusTypeCode.structure, nil) { inner in
                for field in fields { try write(field, into: &inner) }
            }
        case .variant(let inner):
            ok = try container(&iterator, DBusTypeCode.variant, inner.signature) { contents in
                try write(inner, into: &contents)
            }
        }
        guard ok else { throw outOfMemory }
    }

    private static let outOfMemory = DBusFailure.unavailable(reason: "out of memory building a D-Bus message")

    private static func basic<T: BitwiseCopyable>(_ iterator: inout DBusMessageIter, _ type: Int32, _ value: T) -> Bool
    {
        var copy = value
        return dbus_message_iter_append_basic(&iterator, type, &copy) != 0
    }

    private static func text(_ iterator: inout DBusMessageIter, _ type: Int32, _ value: String) -> Bool {
        value.withCString { characters in
            var pointer: UnsafePointer<CChar>? = characters
            return dbus_message_iter_append_basic(&iterator, type, &pointer) != 0
        }
    }

    private static func container(
        _ iterator: inout DBusMessageIter,
        _ type: Int32,
        _ signature: String?,
        _ body: (inout DBusMessageIter) throws -> Void
    ) throws -> Bool {
        var inner = DBusMessageIter()
        let opened: dbus_bool_t
        if let signature {
            opened = signature.withCString { dbus_message_iter_open_container(&iterator, type, $0, &inner) }
        } else {
            opened = dbus_message_iter_open_container(&iterator, type, nil, &inner)
        }
        guard opened != 0 else { return false }
        do {
            try body(&inner)
        } catch {
            dbus_message_iter_abandon_container(&iterator, &inner)
            throw error
        }
        return dbus_message_iter_close_container(&iterator, &inner) != 0
    }
}
