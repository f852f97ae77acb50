// The stack of these suites is the test harness's built stack (libs/testing), shared with the packages e2e.
export {
  startBuiltStack as startStack,
  type BuiltStack as Stack,
  type BuiltStackOptions as StackOptions,
  type ProxiedResource,
} from '@portcullis/testing';
