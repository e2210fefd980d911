import { MongoClient } from 'mongodb';
import {
  databaseNameFromUri,
  mongoClientOptions,
} from '../../core/adapters/mongodb/connection-options';

/** The options the real driver ends up with (constructing a client does no I/O). */
function effective(uri: string) {
  return new MongoClient(uri, mongoClientOptions(uri)).options;
}

describe('MongoDB client options', () => {
  it('defaults to majority writes, retryable writes and second-scale timeouts', () => {
    const options = effective('mongodb://127.0.0.1:27017/shortlink');
    expect(options.writeConcern?.w).toBe('majority');
    expect(options.retryWrites).toBe(true);
    expect(options.serverSelectionTimeoutMS).toBe(5000);
    expect(options.connectTimeoutMS).toBe(5000);
    expect(options.socketTimeoutMS).toBe(10000);
    expect(options.appName).toBe('shortlink');
    expect(options.maxPoolSize).toBe(10);
  });

  it('takes the pool size from the URI when it names one', () => {
    expect(effective('mongodb://127.0.0.1/shortlink?maxPoolSize=50').maxPoolSize).toBe(50);
    expect(effective('mongodb://127.0.0.1/shortlink?maxpoolsize=3').maxPoolSize).toBe(3);
  });

  it('lets options written in the URI win over the defaults', () => {
    const options = effective(
      'mongodb://127.0.0.1:27017/shortlink?w=1&retryWrites=false&serverSelectionTimeoutMS=30000&socketTimeoutMS=0',
    );
    expect(options.writeConcern?.w).toBe(1);
    expect(options.retryWrites).toBe(false);
    expect(options.serverSelectionTimeoutMS).toBe(30000);
    expect(options.socketTimeoutMS).toBe(0);
    expect(options.connectTimeoutMS).toBe(5000);
  });

  it('recognises URI option names case-insensitively, as the driver does', () => {
    const options = effective('mongodb://h1,h2/db?replicaSet=rs0&W=2&SERVERSELECTIONTIMEOUTMS=700');
    expect(options.writeConcern?.w).toBe(2);
    expect(options.serverSelectionTimeoutMS).toBe(700);
    expect(options.hosts.map(String)).toEqual(['h1:27017', 'h2:27017']);
  });

  it.each([
    ['mongodb://localhost:27017/shortlink-test', 'shortlink-test'],
    ['mongodb://localhost:27017/links?w=majority', 'links'],
    ['mongodb://localhost:27017', 'shortlink'],
    ['mongodb://localhost:27017/', 'shortlink'],
    ['mongodb://localhost/?replicaSet=rs0', 'shortlink'],
    ['mongodb://user:p%2Fss@h1:1,h2:2/prod?authSource=admin', 'prod'],
    ['mongodb+srv://user:secret@cluster0.example.net/shortlink?retryWrites=true', 'shortlink'],
  ])('takes the database of %s as "%s"', (uri, expected) => {
    expect(databaseNameFromUri(uri)).toBe(expected);
    if (expected !== 'shortlink') {
      expect(new MongoClient(uri).options.dbName).toBe(expected);
    }
  });
});
