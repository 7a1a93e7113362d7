# plugins/json: placeholder until the plugin lands
