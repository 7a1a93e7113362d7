# plugins/mab: (placeholder until the plugin lands)
