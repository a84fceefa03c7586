/// The pages' player script (Pages/sluice-player.js: hls.js settings, finding the Hls class, holding the live edge),
/// public so that `sluice bench --player hlsjs` plays exactly as the watch page does.
public enum PlayerScript {
    public static var javascript: [UInt8] { PackageResources.sluice_player_js }
}
