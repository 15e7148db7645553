"""The package's version, kept in step with the TypeScript client's (packages/client/package.json)."""

__version__ = "0.1.0"
