/// Placeholder until the module lands.
enum FFmpegBridgePlaceholder {}
