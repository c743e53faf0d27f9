import { quoteLiteral } from '../sql/quote';

// Allowed values, from the specification's tables.
export const CHARGE_CATEGORIES = ['Usage', 'Purchase', 'Tax', 'Credit', 'Adjustment'] as const;
export const CHARGE_FREQUENCIES = ['One-Time', 'Recurring', 'Usage-Based'] as const;
export const PRICING_CATEGORIES = ['Standard', 'Dynamic', 'Committed', 'Other'] as const;
export const COMMITMENT_DISCOUNT_CATEGORIES = ['Spend', 'Usage'] as const;
/** The specification's values (the requirements model lists Active, Expired, Pending instead). */
export const COMMITMENT_DISCOUNT_STATUSES = ['Used', 'Unused'] as const;
export const CAPACITY_RESERVATION_STATUSES = ['Used', 'Unused'] as const;

/** ServiceCategory values and the ServiceSubcategory values each is the parent of. */
export const SERVICE_SUBCATEGORIES: Record<string, readonly string[]> = {
  'AI and Machine Learning': [
    'AI Platforms',
    'Bots',
    'Generative AI',
    'Machine Learning',
    'Natural Language Processing',
  ],
  Analytics: [
    'Analytics Platforms',
    'Business Intelligence',
    'Data Processing',
    'Search',
    'Streaming Analytics',
  ],
  'Business Applications': ['Productivity and Collaboration'],
  Compute: ['Containers', 'End User Computing', 'Quantum Compute', 'Serverless Compute', 'Virtual Machines'],
  Databases: [
    'Caching',
    'Data Warehouses',
    'Ledger Databases',
    'NoSQL Databases',
    'Relational Databases',
    'Time Series Databases',
  ],
  'Developer Tools': [
    'Developer Platforms',
    'Continuous Integration and Deployment',
    'Development Environments',
    'Source Code Management',
    'Quality Assurance',
  ],
  Identity: ['Identity and Access Management'],
  Integration: ['API Management', 'Messaging', 'Workflow Orchestration'],
  'Internet of Things': ['IoT Analytics', 'IoT Platforms'],
  'Management and Governance': [
    'Architecture',
    'Compliance',
    'Cost Management',
    'Data Governance',
    'Disaster Recovery',
    'Endpoint Management',
    'Observability',
    'Support',
  ],
  Media: ['Content Creation', 'Gaming', 'Media Streaming', 'Mixed Reality'],
  Migration: ['Data Migration', 'Resource Migration'],
  Mobile: [],
  Multicloud: ['Multicloud Integration'],
  Networking: [
    'Application Networking',
    'Content Delivery',
    'Network Connectivity',
    'Network Infrastructure',
    'Network Routing',
    'Network Security',
  ],
  Security: ['Secret Management', 'Security Posture Management', 'Threat Detection and Response'],
  Storage: ['Backup Storage', 'Block Storage', 'File Storage', 'Object Storage', 'Storage Platforms'],
  Web: ['Application Platforms'],
  Other: [],
};
export const SERVICE_CATEGORIES = Object.keys(SERVICE_SUBCATEGORIES);
/** Each category also has `Other (<category>)`. */
export const subcategoryPairs = Object.entries(SERVICE_SUBCATEGORIES).flatMap(([category, subs]) =>
  [...subs, `Other (${category})`].map((sub) => `(${quoteLiteral(category)}, ${quoteLiteral(sub)})`),
);
export const ALL_SUBCATEGORIES = Object.entries(SERVICE_SUBCATEGORIES).flatMap(([category, subs]) => [
  ...subs,
  `Other (${category})`,
]);

/** ISO 4217 codes of no national currency (funds codes of a country's own currency excluded). */
export const NON_NATIONAL_CURRENCIES = [
  'XAU',
  'XAG',
  'XPD',
  'XPT',
  'XDR',
  'XSU',
  'XUA',
  'XBA',
  'XBB',
  'XBC',
  'XBD',
  'XTS',
  'XXX',
];
