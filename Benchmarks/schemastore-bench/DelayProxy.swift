import Foundation
#if canImport(Glibc)
import Glibc
/// A stream socket's type, which Glibc imports as an enum and Darwin as a number.
private let streamSocket = Int32(SOCK_STREAM.rawValue)
#elseif canImport(Darwin)
import Darwin
private let streamSocket = SOCK_STREAM
#endif

/// A TCP proxy on 127.0.0.1 that forwards each connection to `upstreamPort` and holds every
/// chunk it forwards, either way, for `delay` before sending it on: a network's latency
/// between the load benchmark's processes and the server, where the kernel offers no
/// `netem`. Chunks keep their order; a round trip takes at least twice `delay`. Runs until
/// the process exits. For benchmarks only (blocking threads, two per direction).
final class DelayProxy: @unchecked Sendable {
    let port: Int
    private let upstreamPort: Int
    private let delay: TimeInterval
    private let listener: Int32

    init(upstreamPort: Int, delay: TimeInterval) throws {
        self.upstreamPort = upstreamPort
        self.delay = delay
        // A chunk sent to a side that has closed (a client that ended without reading its
        // last answer) fails that write, instead of the signal ending the whole benchmark.
        signal(SIGPIPE, SIG_IGN)
        let listener = socket(AF_INET, streamSocket, 0)
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0, listen(listener, 64) == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in acceptForever() }
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private func acceptForever() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            let upstream = socket(AF_INET, streamSocket, 0)
            var address = Self.loopback(port: upstreamPort)
            let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            guard connected == 0 else {
                close(client)
                close(upstream)
                continue
            }
            for descriptor in [client, upstream] {
                var yes: Int32 = 1
                setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
            }
            forward(from: client, to: upstream)
            forward(from: upstream, to: client)
        }
    }

    /// Reads chunks from `source` and writes each to `destination` once `delay` passed.
    private func forward(from source: Int32, to destination: Int32) {
        let queue = DelayedChunks()
        Thread.detachNewThread { [delay] in
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = read(source, &buffer, buffer.count)
                guard count > 0 else {
                    queue.put(nil, at: Date())
                    return
                }
                queue.put(Array(buffer[0..<count]), at: Date().addingTimeInterval(delay))
            }
        }
        Thread.detachNewThread {
            while let (chunk, due) = queue.take() {
                let wait = due.timeIntervalSinceNow
                if wait > 0 { usleep(useconds_t(wait * 1_000_000)) }
                guard let chunk else { break }
                var sent = 0
                while sent < chunk.count {
                    let written = chunk[sent...].withUnsafeBytes { write(destination, $0.baseAddress, $0.count) }
                    guard written > 0 else { return }
                    sent += written
                }
            }
            shutdown(destination, Int32(SHUT_WR))
        }
    }
}

/// The chunks one direction of a ``DelayProxy`` connection holds, in order, each with when
/// it may go on (nil: the source closed).
private final class DelayedChunks: @unchecked Sendable {
    private let condition = NSCondition()
    private var chunks: [([UInt8]?, Date)] = []

    func put(_ chunk: [UInt8]?, at due: Date) {
        condition.withLock {
            chunks.append((chunk, due))
            condition.signal()
        }
    }

    func take() -> ([UInt8]?, Date)? {
        condition.withLock {
            while chunks.isEmpty { condition.wait() }
            return chunks.removeFirst()
        }
    }
}
