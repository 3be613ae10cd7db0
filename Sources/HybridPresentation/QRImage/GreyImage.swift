import CPNG
import CTurboJPEG

/// An 8-bit greyscale image, one byte per pixel, rows top to bottom: what zbar scans.
struct GreyImage: Sendable {
    let width: Int
    let height: Int
    /// `width × height` bytes, 0 black, 255 white.
    let pixels: [UInt8]

    /// Why a PNG or JPEG could not be turned into grey pixels.
    enum DecodingFailure: Error, Equatable {
        /// More pixels than the caller allows.
        case tooLarge
        /// The decoder's own message.
        case decoder(String)
    }

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    static let jpegSignature: [UInt8] = [0xFF, 0xD8, 0xFF]

    /// Decodes a PNG file with libpng's simplified API: any colour type and bit depth becomes 8-bit
    /// grey, composited on white where it is transparent.
    init(png bytes: [UInt8], maximumPixelCount: Int) throws(DecodingFailure) {
        var image = png_image()
        image.version = png_uint_32(PNG_IMAGE_VERSION)
        defer { png_image_free(&image) }
        let begun = bytes.withUnsafeBytes { png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count) }
        guard begun != 0 else { throw .decoder(Self.message(of: image)) }
        let (width, height) = (Int(image.width), Int(image.height))
        guard width > 0, height > 0 else { throw .decoder("the PNG has no pixels") }
        guard width <= maximumPixelCount, height <= maximumPixelCount, width * height <= maximumPixelCount else {
            throw .tooLarge
        }
        image.format = png_uint_32(PNG_FORMAT_GRAY)
        var pixels = [UInt8](repeating: 0xFF, count: width * height)
        var white = png_color(red: 255, green: 255, blue: 255)
        let finished = pixels.withUnsafeMutableBytes {
            png_image_finish_read(&image, &white, $0.baseAddress, png_int_32(width), nil)
        }
        guard finished != 0 else { throw .decoder(Self.message(of: image)) }
        (self.width, self.height, self.pixels) = (width, height, pixels)
    }

    /// Decodes a JPEG file with TurboJPEG into 8-bit grey. A warning (e.g. a truncated file) still
    /// gives the pixels decoded so far; an error throws.
    init(jpeg bytes: [UInt8], maximumPixelCount: Int) throws(DecodingFailure) {
        guard let handle = tjInitDecompress() else { throw .decoder("cannot start the JPEG decoder") }
        defer { tjDestroy(handle) }
        var width: Int32 = 0
        var height: Int32 = 0
        var subsampling: Int32 = 0
        var colourspace: Int32 = 0
        let header = bytes.withUnsafeBufferPointer {
            tjDecompressHeader3(handle, $0.baseAddress, UInt($0.count), &width, &height, &subsampling, &colourspace)
        }
        guard header == 0 else { throw .decoder(Self.message(of: handle)) }
        let (columns, rows) = (Int(width), Int(height))
        // A header without a frame (e.g. a cut file) "succeeds" with no size.
        guard columns > 0, rows > 0 else { throw .decoder("no image frame in the JPEG data") }
        guard columns * rows <= maximumPixelCount else { throw .tooLarge }
        var pixels = [UInt8](repeating: 0xFF, count: columns * rows)
        let decoded = bytes.withUnsafeBufferPointer { source in
            pixels.withUnsafeMutableBufferPointer { target in
                tjDecompress2(
                    handle, source.baseAddress, UInt(source.count), target.baseAddress, width, 0, height,
                    Int32(TJPF_GRAY.rawValue), TJFLAG_ACCURATEDCT | TJFLAG_LIMITSCANS)
            }
        }
        if decoded != 0 && tjGetErrorCode(handle) != Int32(TJERR_WARNING.rawValue) {
            throw .decoder(Self.message(of: handle))
        }
        (self.width, self.height, self.pixels) = (columns, rows, pixels)
    }

    private static func message(of image: png_image) -> String {
        var copy = image.message
        let text = withUnsafeBytes(of: &copy) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        return text.isEmpty ? "not a valid PNG" : text
    }

    private static func message(of handle: tjhandle) -> String {
        guard let text = tjGetErrorStr2(handle) else { return "not a valid JPEG" }
        return String(cString: text)
    }
}
