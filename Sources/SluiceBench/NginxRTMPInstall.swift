import Foundation

/// Where nginx and libnginx-mod-rtmp are installed, if they are (the `nginx-rtmp-hls` anchor needs both).
enum NginxRTMPInstall {
    /// Where Debian's libnginx-mod-rtmp (and a few other layouts) put the dynamic module.
    static let modulePaths = [
        "/usr/lib/nginx/modules/ngx_rtmp_module.so", "/usr/share/nginx/modules/ngx_rtmp_module.so",
        "/usr/lib64/nginx/modules/ngx_rtmp_module.so",
    ]

    /// The nginx binary.
    static func binary() -> String? {
        let dirs = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        return (dirs + ["/usr/sbin", "/usr/local/sbin", "/usr/local/nginx/sbin"]).map { "\($0)/nginx" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The RTMP module.
    static func module() -> String? { modulePaths.first { FileManager.default.fileExists(atPath: $0) } }

    /// Why the anchor cannot run; nil when nginx and its RTMP module are both installed.
    static func unavailableReason() -> String? {
        if binary() == nil { return "nginx is not installed (apt-get install nginx libnginx-mod-rtmp)" }
        if module() == nil { return "libnginx-mod-rtmp is not installed (apt-get install libnginx-mod-rtmp)" }
        return nil
    }
}
