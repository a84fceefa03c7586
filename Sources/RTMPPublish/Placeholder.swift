/// Placeholder until the module lands.
enum RTMPPublishPlaceholder {}
