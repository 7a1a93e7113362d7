# plugins/anm: (placeholder until the plugin lands)
