import CZlib
import Foundation
import ObjectStack

/// Raw DEFLATE (RFC 1951, no zlib or gzip header) through zlib: the encoding of Core Data's model cache
/// (`Z_MODELCACHE.Z_CONTENT`).
enum RawDeflate {
    /// The largest output `inflate` produces: a model cache is a few hundred kilobytes at most; a stream that
    /// claims more is damaged (or hostile) and is refused rather than exhausting memory.
    static let maximumInflatedSize = 256 << 20

    /// Decompresses raw DEFLATE data.
    /// - Throws: `StoreError` `.corrupt` when the stream is damaged, truncated or larger than
    ///   `maximumInflatedSize`.
    static func inflate(_ data: Data, url: URL? = nil) throws -> Data {
        var stream = z_stream()
        guard objectstack_inflate_init_raw(&stream) == Z_OK else {
            throw StoreError(code: .corrupt, message: "zlib could not start inflating", url: url)
        }
        defer { inflateEnd(&stream) }
        var output = Data()
        let chunk = 64 * 1024
        var buffer = [UInt8](repeating: 0, count: chunk)
        var input = [UInt8](data)
        let status: Int32 = input.withUnsafeMutableBufferPointer { source in
            stream.next_in = source.baseAddress
            stream.avail_in = uInt(source.count)
            while true {
                let result = buffer.withUnsafeMutableBufferPointer { target -> Int32 in
                    stream.next_out = target.baseAddress
                    stream.avail_out = uInt(chunk)
                    return CZlib.inflate(&stream, Z_NO_FLUSH)
                }
                output.append(contentsOf: buffer[0..<(chunk - Int(stream.avail_out))])
                if result == Z_STREAM_END { return Z_STREAM_END }
                if result != Z_OK { return result }
                if output.count > maximumInflatedSize { return Z_MEM_ERROR }
                if stream.avail_in == 0 && stream.avail_out != 0 { return Z_BUF_ERROR }
            }
        }
        guard status == Z_STREAM_END else {
            throw StoreError(
                code: .corrupt,
                message: "the compressed data is damaged or truncated (zlib status \(status), \(data.count) bytes)",
                url: url)
        }
        return output
    }

    /// Compresses data as raw DEFLATE, as Core Data writes its model cache.
    static func deflate(_ data: Data) -> Data {
        var stream = z_stream()
        guard objectstack_deflate_init_raw(&stream, Z_DEFAULT_COMPRESSION) == Z_OK else { return Data() }
        defer { deflateEnd(&stream) }
        var input = [UInt8](data)
        let bound = Int(deflateBound(&stream, uLong(input.count)))
        var output = [UInt8](repeating: 0, count: bound)
        let written: Int = input.withUnsafeMutableBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                stream.next_in = source.baseAddress
                stream.avail_in = uInt(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = uInt(target.count)
                _ = CZlib.deflate(&stream, Z_FINISH)
                return target.count - Int(stream.avail_out)
            }
        }
        return Data(output[0..<written])
    }
}
