"""What the bot withstands: one module per area, each test names the hostile input and the promise."""
