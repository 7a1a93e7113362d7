# plugins/ani: (placeholder until the plugin lands)
