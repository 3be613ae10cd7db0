import CZBar

/// Finds QR codes in a grey image with zbar's image scanner (QR symbology only).
enum ZBarQRScanner {
    /// The texts of the QR codes zbar finds in `image`, in zbar's order; empty when there are none.
    static func texts(in image: GreyImage) -> [String] {
        guard let scanner = zbar_image_scanner_create() else { return [] }
        defer { zbar_image_scanner_destroy(scanner) }
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_ENABLE, 1)
        // Also try the inverted image: light modules on a dark background (dark-mode screenshots).
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_TEST_INVERTED, 1)
        guard let zbarImage = zbar_image_create() else { return [] }
        defer { zbar_image_destroy(zbarImage) }
        zbar_image_set_format(zbarImage, fourCC("Y800"))
        zbar_image_set_size(zbarImage, UInt32(image.width), UInt32(image.height))
        return image.pixels.withUnsafeBytes { pixels -> [String] in
            // zbar only reads the pixels, and only during zbar_scan_image; no cleanup handler.
            zbar_image_set_data(zbarImage, pixels.baseAddress, UInt(pixels.count), nil)
            defer { zbar_image_set_data(zbarImage, nil, 0, nil) }
            guard zbar_scan_image(scanner, zbarImage) > 0 else { return [] }
            var texts: [String] = []
            var symbol = zbar_image_first_symbol(zbarImage)
            while let current = symbol {
                if zbar_symbol_get_type(current) == ZBAR_QRCODE, let data = zbar_symbol_get_data(current) {
                    let length = Int(zbar_symbol_get_data_length(current))
                    let bytes = UnsafeRawBufferPointer(start: data, count: length)
                    texts.append(String(decoding: bytes, as: UTF8.self))
                }
                symbol = zbar_symbol_next(current)
            }
            return texts
        }
    }

    /// zbar's image format code: four ASCII characters, the first in the low byte.
    private static func fourCC(_ code: StaticString) -> UInt {
        precondition(code.utf8CodeUnitCount == 4, "a fourcc has four characters")
        var value: UInt = 0
        for index in (0..<4).reversed() { value = value << 8 | UInt(code.utf8Start[index]) }
        return value
    }
}
