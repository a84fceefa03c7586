import CRTMP
import MediaCore
import RTMPWire

#if canImport(Glibc)
import Glibc
#endif

/// An RTMP publishing client over librtmp: connects, publishes, and writes FLV tags.
///
/// librtmp keeps pointers into the URL passed to `RTMP_SetupURL`, so a private mutable copy lives as long as
/// the session; `RTMP_EnableWrite` must precede the connect so `RTMP_ConnectStream` sends `publish`.
public final class RTMPPublisher {
    /// The URL published to.
    public let url: String
    private let rtmp: UnsafeMutablePointer<RTMP>
    private let urlBuffer: UnsafeMutablePointer<CChar>
    private var isOpen = true
    /// Tags written so far (including metadata and sequence headers).
    public private(set) var tagsWritten = 0
    /// The video codec of the last description sent: HEVC and AV1 frames go as E-RTMP tags.
    private var videoCodec: Codec = .h264

    /// Connects to `url` (rtmp://host[:port]/app/key) and publishes; throws when either step fails.
    public init(url: String, timeout: Duration = .seconds(10)) throws(RTMPPublishError) {
        // A dropped connection must surface as a failed write, not kill the process.
        signal(SIGPIPE, SIG_IGN)
        // Failures surface as typed errors; librtmp's own stderr chatter would only duplicate them.
        RTMP_LogSetLevel(RTMP_LOGCRIT)
        self.url = url
        guard let r = RTMP_Alloc() else { throw .connectFailed(url: url) }
        guard let buffer = strdup(url) else {
            RTMP_Free(r)
            throw .connectFailed(url: url)
        }
        rtmp = r
        urlBuffer = buffer
        RTMP_Init(r)
        guard RTMP_SetupURL(r, buffer) != 0 else {
            close()
            throw .invalidURL(url)
        }
        r.pointee.Link.timeout = Int32(max(1, timeout.components.seconds))
        RTMP_EnableWrite(r)
        guard RTMP_Connect(r, nil) != 0 else {
            close()
            throw .connectFailed(url: url)
        }
        guard RTMP_ConnectStream(r, 0) != 0 else {
            close()
            throw .publishRefused(url: url)
        }
    }

    deinit {
        close()
        RTMP_Free(rtmp)
        free(urlBuffer)
    }

    /// Writes onMetaData and the sequence headers (AVC or E-RTMP hvc1/av01, AAC).
    public func send(description: StreamDescription) throws(RTMPPublishError) {
        videoCodec = description.video?.codec ?? .h264
        try write(FLVTagMapping.metadata(for: description))
        for tag in FLVTagMapping.sequenceHeaders(for: description) { try write(tag) }
    }

    /// Writes one frame as a video or audio tag.
    public func send(frame: MediaFrame) throws(RTMPPublishError) {
        try write(FLVTagMapping.tag(for: frame, codec: videoCodec))
    }

    /// Writes one whole FLV tag plus its PreviousTagSize, the unit `RTMP_Write` expects per call.
    public func write(_ tag: FLVTag) throws(RTMPPublishError) {
        guard isOpen else { throw .closed }
        let bytes = tag.serialize()
        let written = bytes.withUnsafeBufferPointer { buf in
            buf.withMemoryRebound(to: CChar.self) { RTMP_Write(rtmp, $0.baseAddress, Int32($0.count)) }
        }
        guard written > 0, RTMP_IsConnected(rtmp) != 0 else {
            throw .writeFailed(kind: "\(tag.kind)", timestamp: tag.timestamp)
        }
        tagsWritten += 1
    }

    /// Unpublishes and closes the connection; safe to call twice.
    public func close() {
        guard isOpen else { return }
        isOpen = false
        RTMP_Close(rtmp)
    }
}
