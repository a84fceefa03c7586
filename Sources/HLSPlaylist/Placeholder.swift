/// Placeholder until the module lands.
enum HLSPlaylistPlaceholder {}
