import CPNG

/// Writes 8-bit RGBA images as PNG files with libpng's simplified API (`png_image_write_to_file`).
///
/// libpng's classic API reports errors by `longjmp`, which Swift cannot survive; the simplified API
/// catches them itself and reports them in `png_image.warning_or_error` and `png_image.message`.
///
/// `write` allocates nothing in Swift but an error's message (libpng allocates its own state and frees
/// it before returning). No shared state: each call has its own `png_image`, so threads may write at once.
public enum PNGWriter {
    /// Writes `width` x `height` pixels of `rgba` (rows top to bottom, 4 bytes per pixel: red, green,
    /// blue, alpha; not premultiplied) to `path`. Throws an `AudioIOError` naming the file and libpng's
    /// message.
    public static func write(rgba: UnsafePointer<UInt8>, width: Int, height: Int, to path: String) throws {
        guard width > 0, height > 0, width <= Int(Int32.max) / 4, height <= Int(Int32.max) else {
            throw AudioIOError(path: path, function: "png_image_write_to_file",
                               reason: "an image of \(width) x \(height) pixels cannot be written", operation: "create")
        }
        var image = png_image()
        image.version = png_uint_32(PNG_IMAGE_VERSION)
        image.width = png_uint_32(width)
        image.height = png_uint_32(height)
        image.format = PNGFormat.rgba
        let ok = png_image_write_to_file(&image, path, 0, rgba, png_int_32(width * 4), nil)
        let reason = PNGMessage.reason(of: &image)
        png_image_free(&image)
        if ok == 0 || image.warning_or_error & 0x03 > 1 {
            throw AudioIOError(path: path, function: "png_image_write_to_file",
                               reason: reason.isEmpty ? "libpng could not write the file" : reason, operation: "create")
        }
    }
}

/// `PNG_FORMAT_RGBA`, which Swift does not import (a macro built from other macros).
enum PNGFormat {
    static let rgba = png_uint_32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA)
}

/// libpng's message from a `png_image` (a fixed `char[64]`), or "" when there is none.
enum PNGMessage {
    static func reason(of image: inout png_image) -> String {
        guard image.warning_or_error != 0 else { return "" }
        return withUnsafeBytes(of: &image.message) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}
