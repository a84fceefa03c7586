import Foundation
import Hummingbird
import LLHLSPackager
import MediaCore

extension OriginRoutes {
    /// `/` (streams), `/watch/{key}` (player), `/publish` (WHIP from the camera), `/dashboard` (hop latency charts)
    /// and their shared CSS/JS.
    static func addPageRoutes(to router: Router<OriginRequestContext>, options: HTTPOriginOptions) {
        let config = PageTemplate(hlsjsURL: options.hlsjsURL, values: options.pageValues)
        router.get("/") { _, _ in
            PageTemplate.response(
                config.render(PackageResources.index_html, key: nil),
                type: "text/html; charset=utf-8"
            )
        }
        router.get("/publish") { _, _ in
            PageTemplate.response(
                config.render(PackageResources.publish_html, key: nil),
                type: "text/html; charset=utf-8"
            )
        }
        router.get("/dashboard") { _, _ in
            PageTemplate.response(
                config.render(PackageResources.dashboard_html, key: nil),
                type: "text/html; charset=utf-8"
            )
        }
        router.get("/watch/:key") { _, context in
            // Only well-formed keys reach the page; the page escapes them again wherever it writes them.
            guard let key = StreamKey(context.parameters.get("key") ?? "") else {
                return OriginResponse.text(404, "not a stream key", maxAge: 0)
            }
            return PageTemplate.response(
                config.render(PackageResources.watch_html, key: key.rawValue),
                type: "text/html; charset=utf-8"
            )
        }
        router.get("/pages/sluice.css") { _, _ in
            PageTemplate.response(PackageResources.sluice_css, type: "text/css; charset=utf-8")
        }
        router.get("/pages/sluice.js") { _, _ in
            PageTemplate.response(PackageResources.sluice_js, type: "text/javascript; charset=utf-8")
        }
        router.get("/pages/sluice-player.js") { _, _ in
            PageTemplate.response(PlayerScript.javascript, type: "text/javascript; charset=utf-8")
        }
        if let module = options.hlsjsModule {
            router.get(RouterPath(PlayerLibrary.servedPath)) { _, _ in
                PageTemplate.response(module, type: "text/javascript; charset=utf-8")
            }
        }
    }
}

/// Server-side values for the pages: `{{CONFIG}}` becomes a JSON object safe inside `<script>`, `{{KEY}}` HTML text.
struct PageTemplate: Sendable {
    let hlsjsURL: String
    var values: [String: String] = [:]

    func render(_ page: [UInt8], key: String?) -> [UInt8] {
        var values = values
        values["hlsjsUrl"] = hlsjsURL
        if let key { values["key"] = key }
        let json =
            (try? JSONSerialization.data(withJSONObject: values, options: [.sortedKeys])).map {
                String(decoding: $0, as: UTF8.self)
            } ?? "{}"
        let text = String(decoding: page, as: UTF8.self)
            .replacingOccurrences(of: "{{CONFIG}}", with: Self.scriptSafe(json))
            .replacingOccurrences(of: "{{KEY}}", with: Self.htmlEscaped(key ?? ""))
        return Array(text.utf8)
    }

    /// JSON inside `<script>` must not contain `</script>` or `<!--`: escape `<`, `>` and `&` as `\u00XX`.
    static func scriptSafe(_ json: String) -> String {
        json.replacingOccurrences(of: "<", with: "\\u003c").replacingOccurrences(of: ">", with: "\\u003e")
            .replacingOccurrences(of: "&", with: "\\u0026")
    }

    /// Text for HTML element content and quoted attributes.
    static func htmlEscaped(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }

    static func response(_ body: [UInt8], type: String) -> Response {
        // Pages change with the binary only; no-cache keeps an upgraded gateway's pages fresh.
        OriginResponse.make(HLSResponse(status: 200, contentType: type, maxAge: 0, body: body))
    }
}
