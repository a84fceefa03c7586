import Foundation

/// nginx with libnginx-mod-rtmp as a child process: RTMP in, classic HLS (MPEG-TS) out on loopback HTTP.
/// The outside anchor of `sluice bench`: the same publisher and the same classic viewer, someone else's server.
final class NginxRTMPAnchor {
    /// The fragment length asked of nginx-rtmp (`hls_fragment`); it cuts at the first keyframe after it.
    let fragment: Duration
    let rtmpPort: Int
    let httpPort: Int
    private let directory: URL
    private let process = Process()

    /// Writes a private nginx.conf under a temporary prefix and starts nginx in the foreground.
    init(fragment: Duration = .seconds(2)) throws(BenchError) {
        guard let nginx = NginxRTMPInstall.binary(), let module = NginxRTMPInstall.module() else {
            throw .anchorFailed(NginxRTMPInstall.unavailableReason() ?? "nginx-rtmp missing")
        }
        guard let rtmp = LoopbackPort.free(), let http = LoopbackPort.free() else {
            throw .anchorFailed("no free loopback port")
        }
        self.fragment = fragment
        rtmpPort = rtmp
        httpPort = http
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sluice-bench-nginx-\(UUID().uuidString)"
        )
        let conf = directory.appendingPathComponent("nginx.conf")
        do {
            try FileManager.default.createDirectory(
                at: directory.appendingPathComponent("hls"),
                withIntermediateDirectories: true
            )
            try Self.configuration(
                module: module,
                prefix: directory.path,
                rtmpPort: rtmp,
                httpPort: http,
                fragment: fragment
            )
            .write(to: conf, atomically: true, encoding: .utf8)
        } catch {
            throw .anchorFailed("cannot write \(conf.path): \(error)")
        }
        process.executableURL = URL(fileURLWithPath: nginx)
        // -e: nginx opens its error log before reading the config; keep it out of /var/log.
        process.arguments = [
            "-p", directory.path, "-c", conf.path, "-e", directory.appendingPathComponent("error.log").path,
            "-g", "daemon off;",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw .anchorFailed("cannot start \(nginx): \(error)")
        }
    }

    deinit { stop() }

    /// Waits until both listeners accept connections.
    func waitUntilReady(timeout: Duration = .seconds(5)) async throws(BenchError) {
        let rtmp = await LoopbackPort.waitUntilListening(rtmpPort, timeout: timeout)
        let http = await LoopbackPort.waitUntilListening(httpPort, timeout: timeout)
        guard rtmp, http, process.isRunning else {
            let log = (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
            throw .anchorFailed("nginx did not start: \(log.suffix(400))")
        }
    }

    /// Where the publisher pushes `key`.
    func rtmpURL(key: String) -> String { "rtmp://127.0.0.1:\(rtmpPort)/live/\(key)" }

    /// The media playlist nginx-rtmp writes for `key`.
    func playlistURL(key: String) -> String { "http://127.0.0.1:\(httpPort)/hls/\(key).m3u8" }

    /// Stops nginx (fast shutdown) and removes its prefix; safe to call twice.
    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// The whole nginx.conf: one worker, the RTMP module writing HLS, a loopback HTTP server reading it.
    static func configuration(
        module: String,
        prefix: String,
        rtmpPort: Int,
        httpPort: Int,
        fragment: Duration
    ) -> String {
        let seconds = max(1, Int(fragment.milliseconds / 1000))
        return """
            load_module \(module);
            worker_processes 1;
            pid \(prefix)/nginx.pid;
            error_log \(prefix)/error.log warn;
            events { worker_connections 256; }
            rtmp {
                server {
                    listen 127.0.0.1:\(rtmpPort);
                    chunk_size 4096;
                    application live {
                        live on;
                        hls on;
                        hls_path \(prefix)/hls;
                        hls_fragment \(seconds)s;
                        hls_playlist_length \(seconds * 10)s;
                    }
                }
            }
            http {
                access_log off;
                client_body_temp_path \(prefix)/client_body;
                proxy_temp_path \(prefix)/proxy;
                fastcgi_temp_path \(prefix)/fastcgi;
                uwsgi_temp_path \(prefix)/uwsgi;
                scgi_temp_path \(prefix)/scgi;
                types {
                    application/vnd.apple.mpegurl m3u8;
                    video/mp2t ts;
                }
                server {
                    listen 127.0.0.1:\(httpPort);
                    location /hls/ {
                        alias \(prefix)/hls/;
                        add_header Cache-Control no-cache;
                        # The real-player page is another origin: hls.js fetches with CORS, native <video> too
                        # (crossorigin, so the page may read the pixels).
                        add_header Access-Control-Allow-Origin * always;
                    }
                }
            }

            """
    }
}
