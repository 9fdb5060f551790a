// Must never run: the manifest is invalid.
throw new Error('broken-manifest code ran');
