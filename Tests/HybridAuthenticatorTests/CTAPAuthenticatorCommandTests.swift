import HybridAuthenticator
import HybridCTAP
import HybridCore
import TestSeededRandom
import Testing

@Suite struct CTAPAuthenticatorCommandTests {
    @Test func getInfoDescribesThisAuthenticator() async throws {
        let authenticator = Fixtures.authenticator()
        let bytes = await authenticator.handle([0x04])
        #expect(bytes.first == 0x00)
        let info = try AuthenticatorGetInfoResponse(cbor: try CTAPResponse.successBody(bytes))
        #expect(info.versions == ["FIDO_2_0", "FIDO_2_1"])
        #expect(info.aaguid == AuthenticatorConfiguration.aaguid)
        #expect(info.aaguid != [UInt8](repeating: 0, count: 16))
        #expect(info.options == ["rk": true, "up": true, "uv": true])
        #expect(info.transports == ["internal", "hybrid"])
        #expect(info.algorithms == [PublicKeyCredentialParameters(algorithm: -7)])
        #expect(info.extensions == ["credProtect", "prf"] && info.pinUvAuthProtocols == nil)
        #expect(Array(bytes.dropFirst()) == authenticator.getInfo.encoded)
        #expect(CBOREncoder.encode(try CBORDecoder.decode(bytes.dropFirst())) == Array(bytes.dropFirst()))
        let withoutUV = Fixtures.authenticator(user: ScriptedUser(canVerifyUser: false))
        let info2 = try AuthenticatorGetInfoResponse(cbor: try CTAPResponse.successBody(await withoutUV.handle([0x04])))
        #expect(info2.options?["uv"] == false)
    }

    @Test func selectionAsksTheUser() async {
        let user = ScriptedUser()
        let authenticator = Fixtures.authenticator(user: user)
        #expect(await authenticator.handle([0x0b]) == [0x00])
        #expect(await user.log == ["confirm selection - -"])
        await user.set(approves: false)
        #expect(await authenticator.handle([0x0b]) == [0x27])
    }

    @Test func otherCommandsAreInvalid() async {
        let user = ScriptedUser()
        let authenticator = Fixtures.authenticator(user: user)
        for command: UInt8 in [0x03, 0x05, 0x06, 0x07, 0x09, 0x0a, 0x0c, 0x0d, 0x40, 0x41, 0x77, 0xff] {
            let outcome = await authenticator.process([command, 0xa0])
            #expect(outcome.response == [0x01], "command \(command)")
            #expect(outcome.command == CTAPCommand(rawValue: command))
        }
        #expect(await authenticator.handle([0x08]) == [0x30])
        #expect(await user.log.isEmpty)
    }

    @Test func malformedRequestsGetTheirStatus() async {
        let user = ScriptedUser()
        let authenticator = Fixtures.authenticator(user: user)
        let hash = CBORValue.bytes(Fixtures.clientDataHash)
        let cases: [([UInt8], UInt8)] = [
            ([], 0x03),
            ([0x04, 0xa0], 0x03),
            ([0x01], 0x14),
            ([0x02, 0xa1], 0x12),
            ([0x02, 0xa2, 0x02, 0x40, 0x01, 0x60], 0x12),  // unsorted keys
            ([0x02, 0xbf, 0xff], 0x12),
            ([0x02] + CBOREncoder.encode([1: "example.com"]), 0x14),
            ([0x02] + CBOREncoder.encode([1: 5, 2: hash]), 0x11),
            ([0x02] + CBOREncoder.encode([1: "example.com", 2: .bytes([1])]), 0x03),
            ([0x02] + CBOREncoder.encode([1, 2]), 0x11),
            ([0x01] + CBOREncoder.encode([1: hash, 2: ["id": "x"], 3: ["id": .bytes([1])]]), 0x14),
        ]
        for (request, status) in cases {
            #expect(await authenticator.handle(request) == [status], "\(Hex.encode(request))")
        }
        #expect(await user.log.isEmpty)
    }

    @Test func randomBytesNeverCrashTheEngine() async {
        let authenticator = Fixtures.authenticator(user: AutoApproveUserInteraction())
        let seed = UInt64.random(in: .min ... .max)
        print("randomBytesNeverCrashTheEngine seed \(seed)")
        var rng = SeededRandom(seed: seed)
        let request = Fixtures.getAssertion().encoded
        for _ in 0..<500 {
            var bytes = request
            bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            let response = await authenticator.handle(Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &rng))))
            #expect(!response.isEmpty)
        }
    }
}
