import CPNG

/// Reads PNG files into 8-bit RGBA pixels with libpng's simplified API; used to check written images.
/// `read` allocates the image's pixel array (and libpng its own state, freed before it returns). No
/// shared state: each call has its own `png_image`, so threads may read at once.
public enum PNGReader {
    /// A value: two `Int`s and the RGBA bytes in one array, allocated when read; `Sendable`, safe to share.
    public struct Image: Sendable {
        public var width: Int
        public var height: Int
        /// Rows top to bottom, 4 bytes per pixel (RGBA).
        public var rgba: [UInt8]

        /// The pixel at column x, row y.
        public func pixel(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
            let i = (y * width + x) * 4
            return (rgba[i], rgba[i + 1], rgba[i + 2], rgba[i + 3])
        }
    }

    /// Calls `png_image_begin_read_from_file` and `png_image_finish_read` (format RGBA).
    public static func read(path: String) throws -> Image {
        var image = png_image()
        image.version = png_uint_32(PNG_IMAGE_VERSION)
        guard png_image_begin_read_from_file(&image, path) != 0 else {
            let reason = PNGMessage.reason(of: &image)
            png_image_free(&image)
            throw AudioIOError(path: path, function: "png_image_begin_read_from_file", reason: reason)
        }
        image.format = PNGFormat.rgba
        let width = Int(image.width), height = Int(image.height)
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        let ok = pixels.withUnsafeMutableBytes { png_image_finish_read(&image, nil, $0.baseAddress, png_int_32(width * 4), nil) }
        let reason = PNGMessage.reason(of: &image)
        png_image_free(&image)
        guard ok != 0 else {
            throw AudioIOError(path: path, function: "png_image_finish_read", reason: reason, operation: "read")
        }
        return Image(width: width, height: height, rgba: pixels)
    }
}
