// Loaded before anything else by the server's entry point: libraries such as graphql read NODE_ENV
// when they load, and skip development-only checks in production.
process.env.NODE_ENV ??= 'production';
